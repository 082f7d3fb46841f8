"""Spanish texts of the labs and exercises of chapters 10–12 (verifier, run record, clinic,
questions). Part of the Spanish table (see :func:`gastudy.course.i18n.table_modules`)."""

STRINGS: dict[str, str] = {
    # ---- chapter 01 (the logging-axes lab's progress note)
    "training m={m}, A={A}": "entrenando m={m}, A={A}",
    # ---- chapter 10: the verifier and the run record
    "MB-10 · Verify one update on a small controlled set before any campaign":
        "MB-10 · Verifica una actualización en un conjunto pequeño y controlado antes de cualquier campaña",
    "MB-10 · The run record: everything needed to interpret or repeat the run":
        "MB-10 · El registro de la ejecución: todo lo necesario para interpretarla o repetirla",
    "gradient equals the big batch": "el gradiente es igual al del lote grande",
    "same sample ids": "mismos identificadores de muestra",
    "finite gradients": "gradientes finitos",
    "gradients zero at the group boundary": "gradientes a cero en el límite del grupo",
    "exactly one optimizer step": "exactamente un paso del optimizador",
    "exactly one scheduler step": "exactamente un paso del planificador",
    "gradient equals the single-process big batch": "el gradiente es igual al del lote grande en un solo proceso",
    "same gradient on every replica": "el mismo gradiente en cada réplica",
    "sample ids distinct across replicas": "identificadores de muestra distintos entre réplicas",
    "global denominator = the big batch's supervised items":
        "denominador global = objetivos de predicción del lote grande",
    "check": "comprobación",
    "ok": "resultado",
    "PASSED": "SUPERADA",
    "FAILED:": "FALLÓ:",
    "preparation": "preparación",
    "trial": "prueba",
    "accepted": "aceptada",
    "stage": "etapa",
    "observed peak {peak}; saved to {json} and {markdown}":
        "pico observado {peak}; guardado en {json} y {markdown}",
    # ---- exercises 10
    "answer with a dict of verify arguments, got {answer}":
        "responde con un dict de argumentos de verify; se recibió {answer}",
    "the exercise asks for precision='bf16', accumulation_steps=8 on model 'tiny-gpt'":
        "el ejercicio pide precision='bf16' y accumulation_steps=8 con el modelo 'tiny-gpt'",
    "verify(**answer) raised {error}: {message}": "verify(**answer) lanzó {error}: {message}",
    "passed: relative gap {gap} within bf16's tolerance {tol}.":
        "superada: diferencia relativa {gap}, dentro de la tolerancia de bf16 ({tol}).",
    "it fails: {reasons}": "falla: {reasons}",
    "answer with a whole number of samples, got {answer}":
        "responde con un número entero de muestras; se recibió {answer}",
    "{expected} samples: 150 samples make 38 microbatches (the last holds 2), so after 9 full groups the last "
    "group has {microbatches} microbatches.":
        "{expected} muestras: 150 muestras forman 38 microlotes (el último tiene 2), así que tras 9 grupos "
        "completos el último grupo tiene {microbatches} microlotes.",
    "that is the number of microbatches; the question asks for samples.":
        "ese es el número de microlotes; la pregunta pide muestras.",
    "{answer} is not it; look at record.result.record.last_group['groups'][0]['sample_ids']":
        "{answer} no es; mira record.result.record.last_group['groups'][0]['sample_ids']",
    # ---- chapter 11: the clinic
    "MB-11 · The clinic: pick a pitfall, watch its detector fire, then watch the fix":
        "MB-11 · La clínica: elige un error típico, observa cómo salta su detector y luego la corrección",
    "MB-11 · Every pitfall, its detector and its fix": "MB-11 · Cada error típico, su detector y su corrección",
    "the loss is abnormally small": "la pérdida es anormalmente pequeña",
    "a division applied twice (loss already ÷ items, then ÷ A again), an inflated denominator, or fp16 "
    "gradients clipped while still scaled":
        "una división aplicada dos veces (pérdida ya ÷ objetivos y luego ÷ A otra vez), un denominador inflado, o "
        "gradientes fp16 recortados cuando aún están escalados",
    "the result changes when the same samples are split differently":
        "el resultado cambia cuando las mismas muestras se reparten de otra forma",
    "ignored tokens counted, or a mean of microbatch means instead of a token-weighted mean":
        "se cuentan tokens ignorados, o se usa una media de medias de microlotes en lugar de una media ponderada "
        "por tokens",
    "accumulation has no effect (or leaks across updates)":
        "la acumulación no tiene efecto (o se filtra entre actualizaciones)",
    "where zero_grad and optimizer.step are called": "dónde se llaman zero_grad y optimizer.step",
    "memory grows with every microbatch of a group": "la memoria crece con cada microlote de un grupo",
    "references kept between microbatches (losses still attached to their graphs)":
        "referencias que se conservan entre microlotes (pérdidas todavía unidas a sus grafos)",
    "the learning-rate schedule is shifted": "el calendario de la tasa de aprendizaje está desplazado",
    "whether the scheduler counts backward passes instead of applied updates":
        "si el planificador cuenta pasadas hacia atrás en lugar de actualizaciones aplicadas",
    "double division": "doble división",
    "partition dependence": "dependencia del reparto",
    "ineffective accumulation": "acumulación ineficaz",
    "memory growth": "crecimiento de la memoria",
    "schedule drift": "deriva del calendario",
    "zero_grad inside the microbatch loop: only the last microbatch's gradient reaches the step (MB-1)":
        "zero_grad dentro del bucle de microlotes: solo el gradiente del último microlote llega al paso (MB-1)",
    "no zero_grad between groups: the previous group's gradient leaks into the next update (MB-1)":
        "sin zero_grad entre grupos: el gradiente del grupo anterior se filtra en la siguiente actualización (MB-1)",
    "a loss already divided by num_items declared as not scaled: divided again by A (GA-6)":
        "una pérdida ya dividida por num_items declarada como no escalada: se divide otra vez por A (GA-6)",
    "mean of microbatch means on variable-length data: the result depends on how samples are split (MB-3)":
        "media de las medias de los microlotes con datos de longitud variable: el resultado depende de cómo se "
        "repartan las muestras (MB-3)",
    "microbatch means ÷ the configured A: a short last group is under-weighted by size/A (MB-4)":
        "medias de microlote ÷ el A configurado: un último grupo incompleto pesa de menos en un factor tamaño/A "
        "(MB-4)",
    "causal items counted without the shift: the denominator is too large by one per row (GA-5)":
        "objetivos causales contados sin el desplazamiento: el denominador sobra en uno por fila (GA-5)",
    "scheduler stepped per microbatch: the schedule runs A× too fast (MB-6)":
        "planificador avanzado en cada microlote: el calendario va A veces demasiado rápido (MB-6)",
    "graph-attached losses summed across microbatches: activations of every microbatch stay alive (MB-4)":
        "pérdidas unidas al grafo sumadas entre microlotes: las activaciones de todos los microlotes siguen en "
        "memoria (MB-4)",
    "fp16: clipping the scaled gradients before unscale_: the applied gradient shrinks by the loss scale (MB-5)":
        "fp16: recortar los gradientes escalados antes de unscale_: el gradiente aplicado se reduce en el factor "
        "de escala de la pérdida (MB-5)",
    "pitfall": "error típico",
    "fixed": "corregido",
    "logged (pitfall)": "registrada (error)",
    "logged (fixed)": "registrada (corregido)",
    "loss of the group (nats)": "pérdida del grupo (nats)",
    "gradient {k}× smaller than the big batch's": "gradiente {k} veces menor que el del lote grande",
    "the same samples split as m × A": "las mismas muestras repartidas como m × A",
    "gradient change (relative)": "cambio del gradiente (relativo)",
    "update {g}": "actualización {g}",
    "|Δ| from the group's true gradient (relative)": "|Δ| respecto al gradiente real del grupo (relativo)",
    "microbatch index in the group": "índice del microlote en el grupo",
    "KiB still alive at its start": "KiB aún vivos al empezar",
    "schedule per update": "calendario por actualización",
    "learning rate": "tasa de aprendizaje",
    "symptom:": "síntoma:",
    "look for:": "qué buscar:",
    "the pitfall": "el error típico",
    "detector on the pitfall:": "detector con el error:",
    "detector on the fix:": "detector con la corrección:",
    "A = {A}: {ok} of {n} detectors fire on their pitfall and stay quiet on the fix; the last column is what "
    "each measured, and that moves with A":
        "A = {A}: {ok} de {n} detectores saltan con su error y callan con la corrección; la última columna es lo "
        "que midió cada uno, y eso cambia con A",
    "symptom": "síntoma",
    "detector": "detector",
    "fires on the pitfall": "salta con el error",
    "quiet on the fix": "calla con la corrección",
    "measured on the pitfall": "medido con el error",
    # ---- exercises 11
    "answer with a function f(model, optimizer, scheduler, group) -> float, got {answer}":
        "responde con una función f(model, optimizer, scheduler, group) -> float; se recibió {answer}",
    "your update function raised {error}: {message}": "tu función de actualización lanzó {error}: {message}",
    "all five detectors are quiet: {symptoms}.": "los cinco detectores callan: {symptoms}.",
    "answer with a number (the factor k), got {answer}": "responde con un número (el factor k); se recibió {answer}",
    "k = {k} = {implied} ÷ {denominator} items: one extra item for each of the {rows} rows whose first label "
    "is supervised.":
        "k = {k} = {implied} ÷ {denominator} objetivos: uno de más por cada una de las {rows} filas cuya primera "
        "etiqueta es objetivo de predicción.",
    "that is 1/k: the gradient is k times *smaller*, so k > 1.":
        "eso es 1/k: el gradiente es k veces *menor*, así que k > 1.",
    "{answer} is not the measured factor; read case.result.before.evidence['k']":
        "{answer} no es el factor medido; lee case.result.before.evidence['k']",
    # ---- chapter 12: the questions
    "MB-12 · Ask a question; the answer is measured now": "MB-12 · Haz una pregunta; la respuesta se mide ahora",
    "question": "pregunta",
    "Q: {question}": "P: {question}",
    "Measured just now · sections {sections} · taught in {chapter}":
        "Medido ahora mismo · secciones {sections} · se enseña en {chapter}",
    "Is accumulating A microbatches the same as one batch A times larger?":
        "¿Acumular A microlotes es lo mismo que un lote A veces más grande?",
    "Can I simply divide each microbatch's loss by A?": "¿Puedo simplemente dividir la pérdida de cada microlote por A?",
    "Will accumulation make my training faster?": "¿La acumulación hará más rápido mi entrenamiento?",
    "How much memory does a smaller microbatch really save?":
        "¿Cuánta memoria ahorra de verdad un microlote más pequeño?",
    "If I change A, must I change the learning rate?": "Si cambio A, ¿debo cambiar la tasa de aprendizaje?",
    "Should the scheduler step once per microbatch?": "¿Debe avanzar el planificador una vez por microlote?",
    "I train on 8 GPUs: is my effective batch m × A × 8?": "Entreno con 8 GPU: ¿mi lote efectivo es m × A × 8?",
    "What happens to the samples of the last, short group?": "¿Qué pasa con las muestras del último grupo incompleto?",
    "Does activation checkpointing change my gradients?":
        "¿Los puntos de control de activaciones (checkpointing) cambian mis gradientes?",
    "Checkpointing or a smaller microbatch: which saves more memory?":
        "¿Checkpointing o un microlote más pequeño: qué ahorra más memoria?",
    "Why does memory jump at the first update?": "¿Por qué salta la memoria en la primera actualización?",
    "With fp16, can an update be skipped — and does the schedule notice?":
        "Con fp16, ¿se puede saltar una actualización? ¿Y se entera el calendario?",
    "How do I know each GPU sees different samples?": "¿Cómo sé que cada GPU ve muestras distintas?",
    "Why are my weights not bit-identical after switching to accumulation?":
        "¿Por qué mis pesos no son idénticos bit a bit tras pasar a la acumulación?",
    "Should I offload activations to the CPU?": "¿Debo descargar las activaciones a la CPU (offload)?",
    "Checkpointing or accumulation: which one changes my training?":
        "¿Checkpointing o acumulación: cuál cambia mi entrenamiento?",
    "Does the Hugging Face Trainer normalize accumulation correctly?":
        "¿El Trainer de Hugging Face normaliza bien la acumulación?",
    "Only when every layer treats samples independently. One update of A=4 microbatches of m=4 against one "
    "batch of 16: tiny-gpt differs by {gpt} and the LayerNorm MLP by {ln} (relative, float32 rounding), the "
    "BatchNorm MLP by {bn} — BatchNorm normalizes each microbatch with its own statistics.":
        "Solo cuando cada capa trata las muestras de forma independiente. Una actualización de A=4 microlotes de "
        "m=4 frente a un lote de 16: tiny-gpt difiere en {gpt} y el MLP con LayerNorm en {ln} (relativo, redondeo "
        "de float32); el MLP con BatchNorm, en {bn}: BatchNorm normaliza cada microlote con sus propias "
        "estadísticas.",
    "Only when every microbatch has the same number of supervised items. On variable-length addition problems "
    "({items} supervised tokens in 4 microbatches) dividing each microbatch mean by A misses the big-batch "
    "gradient by {steps} (relative); dividing the summed loss by the group's tokens misses it by {tokens}.":
        "Solo cuando todos los microlotes tienen el mismo número de objetivos de predicción. Con sumas de "
        "longitud variable ({items} tokens objetivo en 4 microlotes), dividir la media de cada microlote por A se "
        "desvía del gradiente del lote grande en {steps} (relativo); dividir la pérdida sumada por los tokens del "
        "grupo se desvía solo {tokens}.",
    "No. The same 16 samples per update ran at {big} samples/s as one batch (16×1) and at {acc} samples/s as "
    "16 microbatches of 1 ({ratio}× on this machine). Accumulation buys memory, not speed: use it when the "
    "batch you want does not fit.":
        "No. Las mismas 16 muestras por actualización se procesaron a {big} muestras/s como un solo lote (16×1) "
        "y a {acc} muestras/s como 16 microlotes de 1 ({ratio}× en esta máquina). La acumulación compra memoria, "
        "no velocidad: úsala cuando el lote que quieres no cabe.",
    "The activations shrink with m; nothing else does. For 16 samples per update on tiny-gpt (hidden 128), one "
    "microbatch's saved activations drop from {big} (m=16) to {small} (m=2, A=8), an {cut}× cut. Weights, "
    "gradients and AdamW state stay at {fixed} either way; the measured process peaks were {peak_big} and "
    "{peak_small}.":
        "Con m se reducen las activaciones y nada más. Para 16 muestras por actualización en tiny-gpt (hidden "
        "128), las activaciones guardadas de un microlote bajan de {big} (m=16) a {small} (m=2, A=8), una "
        "reducción de {cut}×. Pesos, gradientes y estado de AdamW se quedan en {fixed} en ambos casos; los picos "
        "medidos del proceso fueron {peak_big} y {peak_small}.",
    "The course cannot give you a rule, but it can show what changed. On 1000 samples with m=8, A=4 makes {a4} "
    "updates per epoch and A=8 makes {a8}: a schedule written in updates now ends {ratio}× sooner in samples. "
    "Decide whether to keep the number of updates or the samples seen, and whether to scale the learning rate "
    "— then write that assumption into the run record.":
        "El curso no puede darte una regla, pero sí mostrarte qué cambió. Con 1000 muestras y m=8, A=4 hace {a4} "
        "actualizaciones por época y A=8 hace {a8}: un calendario escrito en actualizaciones termina ahora {ratio}× "
        "antes en muestras. Decide si mantienes el número de actualizaciones o las muestras vistas, y si escalas "
        "la tasa de aprendizaje; después anota ese supuesto en el registro de la ejecución.",
    "No — once per applied update. Over {updates} updates of A={A} microbatches, a per-microbatch scheduler "
    "stepped {wrong} times and left the learning rate at {lr} instead of {expected}; stepped per update it took "
    "{right} steps, as planned.":
        "No: una vez por actualización aplicada. En {updates} actualizaciones de A={A} microlotes, un planificador "
        "avanzado por microlote dio {wrong} pasos y dejó la tasa de aprendizaje en {lr} en lugar de {expected}; "
        "avanzado por actualización dio {right} pasos, como estaba previsto.",
    "m={m} × A={A} × D={D} = {batch} samples per update ({per_replica} per replica, {devices} devices)":
        "m={m} × A={A} × D={D} = {batch} muestras por actualización ({per_replica} por réplica, {devices} "
        "dispositivos)",
    "Only if all 8 are data-parallel replicas. With tensor parallelism of 2, the 8 GPUs hold {replicas} "
    "replicas: {plan}. Counting every card would claim {wrong} samples per update.":
        "Solo si las 8 son réplicas de paralelismo de datos. Con paralelismo de tensores de 2, las 8 GPU "
        "contienen {replicas} réplicas: {plan}. Contar todas las tarjetas supondría {wrong} muestras por "
        "actualización.",
    "You choose, and you write it down. 22 samples in microbatches of 2 make 11 microbatches: with A=4 the "
    "last group has 3. `keep` makes {keep} updates and processes the short group with its own denominator; "
    "`drop` makes {drop} and skips samples {ids}. Either way the record lists the samples affected.":
        "Tú eliges, y lo dejas por escrito. 22 muestras en microlotes de 2 forman 11 microlotes: con A=4 el último "
        "grupo tiene 3. `keep` hace {keep} actualizaciones y procesa el grupo incompleto con su propio "
        "denominador; `drop` hace {drop} y se salta las muestras {ids}. En ambos casos el registro enumera las "
        "muestras afectadas.",
    "No. Checkpointing recomputes the same forward during backward; it changes memory and time, not the maths. "
    "On tiny-gpt the gradients with and without checkpointing every layer differ by {abs_diff} at most "
    "(relative {rel_diff}).":
        "No. El checkpointing recalcula la misma pasada hacia adelante durante la pasada hacia atrás; cambia la "
        "memoria y el tiempo, no las matemáticas. En tiny-gpt, los gradientes con y sin checkpointing en cada "
        "capa difieren como mucho en {abs_diff} (relativo {rel_diff}).",
    "Measure both; they combine. Saved for backward per microbatch on tiny-gpt (hidden 128, sequence 32): m=8 "
    "keeps {m8}, m=8 with checkpointing {m8_ckpt}, m=2 (A×4 to keep the batch) {m2}, and both together "
    "{m2_ckpt}. Accumulation costs extra passes over the weights, checkpointing costs a recomputed forward: "
    "chapter 08 times both.":
        "Mide ambos; se combinan. Lo guardado para la pasada hacia atrás por microlote en tiny-gpt (hidden 128, "
        "secuencia 32): m=8 guarda {m8}, m=8 con checkpointing {m8_ckpt}, m=2 (A×4 para mantener el lote) {m2}, "
        "y ambos juntos {m2_ckpt}. La acumulación cuesta pasadas extra sobre los pesos; el checkpointing, una "
        "pasada hacia adelante recalculada: el capítulo 08 cronometra ambos.",
    "Because AdamW creates its state at the first step. Optimizer state was {before} through the first group's "
    "forwards and backwards and {after} after update 1 (two tensors per weight); gradients ({grads}) appear at "
    "the first backward. A forward-only check sees neither — watch a whole group and the first update.":
        "Porque AdamW crea su estado en el primer paso. El estado del optimizador fue {before} durante las "
        "pasadas del primer grupo y {after} tras la actualización 1 (dos tensores por peso); los gradientes "
        "({grads}) aparecen en la primera pasada hacia atrás. Una comprobación solo de la pasada hacia adelante "
        "no ve ninguno de los dos: observa un grupo entero y la primera actualización.",
    "Yes, and the counters must say so. With an overflow injected into the first group, the scaler skipped "
    "that update and lowered the scale from {before} to {after}: {attempted} updates attempted, {applied} "
    "applied, {scheduler} scheduler steps — the schedule follows the applied updates.":
        "Sí, y los contadores deben reflejarlo. Con un desbordamiento inyectado en el primer grupo, el escalador "
        "se saltó esa actualización y bajó la escala de {before} a {after}: {attempted} actualizaciones "
        "intentadas, {applied} aplicadas, {scheduler} pasos del planificador; el calendario sigue a las "
        "actualizaciones aplicadas.",
    "Compare the sample ids every replica processed. The first 8 ids of two replicas: sharded, {sharded} ids "
    "repeat; without sharding, {unsharded} of 8 repeat and {extra} of the 16 'samples' add nothing new. "
    "Chapter 06 runs this check on a real two-process run, where the engine refuses the update.":
        "Compara los identificadores de muestra que procesó cada réplica. Los 8 primeros de dos réplicas: con "
        "reparto de datos se repiten {sharded}; sin reparto se repiten {unsharded} de 8 y {extra} de las 16 "
        "'muestras' no aportan nada nuevo. El capítulo 06 hace esta comprobación en una ejecución real de dos "
        "procesos, donde el motor rechaza la actualización.",
    "Because floating-point addition is not associative: A microbatches add in another order than one batch. "
    "After 10 AdamW updates of tiny-gpt trained both ways on the same samples, the largest weight difference "
    "is {fp32} in float32 and {fp64} in float64. Verify one update against a tolerance; compare finished runs "
    "by their metrics.":
        "Porque la suma en coma flotante no es asociativa: A microlotes suman en otro orden que un solo lote. Tras "
        "10 actualizaciones de AdamW de tiny-gpt entrenado de las dos formas con las mismas muestras, la mayor "
        "diferencia de pesos es {fp32} en float32 y {fp64} en float64. Verifica una actualización con una "
        "tolerancia; compara las ejecuciones terminadas por sus métricas.",
    "on this GPU the device kept {kept} instead of {plain}": "en esta GPU el dispositivo guardó {kept} en lugar de {plain}",
    "on this CPU-only machine there is nothing to move: the bytes are the same with and without it ({kept})":
        "en esta máquina solo con CPU no hay nada que mover: los bytes son los mismos con y sin ella ({kept})",
    "Only when nothing else fits on the accelerator. With every layer checkpointed, what remains is each "
    "layer's input: for tiny-gpt with 4 layers, m=8, T=128 and hidden 256 that is {formula} by the formula "
    "layers × m × T × hidden × 4 bytes (measured {measured} with the shared mask). Offload moves it to pinned "
    "host memory; {where}. The price is a device→host copy in the forward and a host→device copy in the "
    "backward, on the compute stream: every update gets slower (chapter 08 times it on a GPU).":
        "Solo cuando nada más cabe en el acelerador. Con checkpointing en cada capa, lo que queda es la entrada "
        "de cada capa: para tiny-gpt con 4 capas, m=8, T=128 y hidden 256 son {formula} según la fórmula capas × "
        "m × T × hidden × 4 bytes (medido: {measured} con la máscara compartida). La descarga (offload) lo lleva "
        "a memoria fijada del host; {where}. El precio es una copia dispositivo→host en la pasada hacia adelante "
        "y otra host→dispositivo en la pasada hacia atrás, en el flujo de cálculo: cada actualización se vuelve "
        "más lenta (el capítulo 08 lo cronometra en una GPU).",
    "They answer different problems. Checkpointing keeps the batch and recomputes: its gradient equals the "
    "un-checkpointed one to {ckpt} (the same operations run again). Accumulation splits the batch: its "
    "gradient matches the big batch within rounding ({accumulated} relative on tiny-gpt) only when every layer "
    "treats samples independently — with BatchNorm it is off by {bn}. So: if one sample's activations are the "
    "problem (long sequences), checkpoint; if you want a bigger batch than fits, accumulate; if neither is "
    "enough, combine them (chapter 08 measures the product).":
        "Responden a problemas distintos. El checkpointing mantiene el lote y recalcula: su gradiente coincide con "
        "el de sin checkpointing hasta {ckpt} (se repiten las mismas operaciones). La acumulación parte el lote: "
        "su gradiente coincide con el del lote grande salvo redondeo ({accumulated} relativo en tiny-gpt) solo si "
        "cada capa trata las muestras de forma independiente; con BatchNorm se desvía {bn}. Por tanto: si el "
        "problema son las activaciones de una sola muestra (secuencias largas), usa checkpointing; si quieres un "
        "lote mayor del que cabe, acumula; si ninguno basta, combínalos (el capítulo 08 mide el producto).",
    "the Trainer measurement": "la medición con el Trainer",
    "Not measured here: {note} Without the measurement, the rule from the Hugging Face guide: the Trainer "
    "divides the summed loss by the group's supervised tokens (num_items_in_batch) when the model accepts it; "
    "a custom loss must do the same and declare it (loss_is_scaled_for_ga).":
        "No se mide aquí: {note} Sin la medición, la regla de la guía de Hugging Face: el Trainer divide la "
        "pérdida sumada por los tokens objetivo del grupo (num_items_in_batch) cuando el modelo lo admite; una "
        "pérdida propia debe hacer lo mismo y declararlo (loss_is_scaled_for_ga).",
    "With its defaults, yes. One Trainer update (per_device_train_batch_size=2, gradient_accumulation_steps=4) "
    "of a tiny GPT-2 on variable-length samples gives the gradient of gastudy's token-normalized engine to "
    "{tokens} (relative), and is {steps} away from a ÷A normalization. The Trainer counts the group's supervised "
    "tokens (num_items_in_batch) before the first backward. A custom compute_loss must divide its summed loss by "
    "that count — and the Trainer subclass must say so with loss_is_scaled_for_ga = True, or the loss is divided "
    "by A once more (chapter 03).":
        "Con sus valores por defecto, sí. Una actualización del Trainer (per_device_train_batch_size=2, "
        "gradient_accumulation_steps=4) de un GPT-2 diminuto con muestras de longitud variable da el gradiente del "
        "motor de gastudy normalizado por tokens hasta {tokens} (relativo), y está a {steps} de una normalización "
        "÷A. El Trainer cuenta los tokens objetivo del grupo (num_items_in_batch) antes de la primera pasada hacia "
        "atrás. Un compute_loss propio debe dividir su pérdida sumada por ese recuento, y la subclase del Trainer "
        "debe indicarlo con loss_is_scaled_for_ga = True; si no, la pérdida se divide por A una vez más "
        "(capítulo 03).",
    # ---- exercises 12
    "answer with a fraction between 0 and 1, got {answer}":
        "responde con una fracción entre 0 y 1; se recibió {answer}",
    "{share}: the activations shrink {cut}×, but weights, gradients and AdamW state ({fixed} bytes) do not, so "
    "the whole shrinks much less than the activations.":
        "{share}: las activaciones se reducen {cut}×, pero los pesos, los gradientes y el estado de AdamW "
        "({fixed} bytes) no, así que el total se reduce mucho menos que las activaciones.",
    "answer as a fraction between 0 and 1, not a percentage":
        "responde con una fracción entre 0 y 1, no con un porcentaje",
    "{answer} is the cut in activations alone; the question asks about all tensor bytes: add the fixed part "
    "(fixed_m16) to the denominator":
        "{answer} es la reducción de las activaciones solas; la pregunta trata de todos los bytes de tensores: "
        "suma la parte fija (fixed_m16) al denominador",
    "{answer} is not it; compute (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) from "
    "ask('memory-saved').evidence":
        "{answer} no es; calcula (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) a partir de "
        "ask('memory-saved').evidence",
    "{bytes} bytes ≈ {mib} MiB per sample: multiply by m for a microbatch (chapter 08 shows the straight line).":
        "{bytes} bytes ≈ {mib} MiB por muestra: multiplica por m para un microlote (el capítulo 08 muestra la "
        "recta).",
    "close ({answer} vs the measured {expected}); use the exact value saved_bytes(...).total":
        "cerca ({answer} frente a los {expected} medidos); usa el valor exacto saved_bytes(...).total",
    "{answer} is off by {ratio}×; did you use m=1, sequence 32 and the model sizes given?":
        "{answer} se desvía {ratio}×; ¿usaste m=1, secuencia 32 y los tamaños de modelo indicados?",
    # ---- chapters 10 and 11: check_loop on nanoGPT's loop
    'clipping per microbatch':
        'recorte por microlote',
    'clipping before unscale':
        'recorte antes de unscale_',
    'missing division':
        'división que falta',
    'wrong gradient':
        'gradiente erróneo',
    'passes':
        'pasa',
    "nanoGPT's loop with its defaults passes, judged in {precision}: relative error {rel:.1e} ≤ tolerance {tol:.1e} (noise floor {floor:.1e})":
        'el bucle de nanoGPT con sus valores por defecto pasa, juzgado en {precision}: error relativo {rel:.1e} ≤ tolerancia {tol:.1e} (umbral de ruido {floor:.1e})',
    'the clip fired and is part of the right update: norm {before:.3f} → {after:.3f}':
        'el recorte de gradientes actuó y forma parte de la actualización correcta: norma {before:.3f} → {after:.3f}',
    'on variable lengths the same loop is the mean of microbatch means ({pct:.0f}% off the big batch)':
        'con longitudes variables el mismo bucle es la media de medias de los microlotes (a un {pct:.0f} % del lote grande)',
    'the report points at the line: {where}':
        'el informe señala la línea: {where}',
    'the slip is found and its line named: {where}':
        'el descuido se detecta y se nombra su línea: {where}',
    'expected':
        'esperado',
    'verdict':
        'veredicto',
    'the line named':
        'la línea señalada',
    "nanoGPT's own loop passes and each of its {n} slips is named":
        'el bucle original de nanoGPT pasa y cada uno de sus {n} descuidos queda nombrado',
}
