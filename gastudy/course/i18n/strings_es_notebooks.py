"""The course notebooks' check claims and printed sentences in es: English text (the
``t("…")`` calls in the English notebooks' code cells) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    '\nloss per update (nats):':
        '\npérdida por actualización (nats):',
    '  ← -100 = no target (the prompt)':
        '  ← -100 = sin objetivo (el prompt)',
    '16 microbatches of 1 are slower than one batch of 16':
        '16 microlotes de 1 son más lentos que un lote de 16',
    '16× the global batch → {updates} vs {updates2} updates for the same samples':
        '16× el lote global → {updates} frente a {updates2} actualizaciones para las mismas muestras',
    '32 microbatches of 1 are slower than one batch of 32':
        '32 microlotes de 1 son más lentos que un lote de 32',
    '8× the samples → {value:.2f}× the bytes (linear in m)':
        '8× las muestras → {value:.2f}× los bytes (lineal en m)',
    'AdamW: they move {adamw:.2f}× as far — the factor mostly cancels, eps takes the rest':
        'AdamW: los pesos se mueven {adamw:.2f}× la distancia — el factor casi se cancela, eps se lleva el resto',
    'AdamW: they move {adamw:.4f}× as far — its per-coordinate scaling cancels the constant factor':
        'AdamW: los pesos se mueven {adamw:.4f}× la distancia — su escala por coordenada cancela el factor constante',
    'BatchNorm does not: its gap is {bn_mlp:.3g}, far above float32 rounding':
        'BatchNorm no: su diferencia es {bn_mlp:.3g}, muy por encima del redondeo de float32',
    'BatchNorm fails, and the verdict names it':
        'BatchNorm falla, y el veredicto lo nombra',
    'BatchNorm with the whole batch in one microbatch (A = 1) matches exactly':
        'BatchNorm con todo el lote en un solo microlote (A = 1) coincide exactamente',
    'D=2 passes against the single-process big batch of {samples} samples, per replica {per_replica}':
        'D=2 pasa frente al lote grande de un solo proceso con {samples} muestras, por réplica {per_replica}',
    'G1+…+G{accumulation_steps} equals the gradient of one batch of {value} in {dtype} (relative gap {max_rel_diff:.1e} ≤ {tolerance:g})':
        'G1+…+G{accumulation_steps} es igual al gradiente de un lote de {value} en {dtype} (diferencia relativa {max_rel_diff:.1e} ≤ {tolerance:g})',
    'LayerNorm and no-norm MLPs match the big batch (relative gaps {ln_mlp:.1e}, {mlp:.1e})':
        'los MLP con LayerNorm y sin normalización coinciden con el lote grande (diferencias relativas {ln_mlp:.1e}, {mlp:.1e})',
    'SGD with gradients ÷ 65,536: the weights move {sgd:.1e}× as far — it stops learning':
        'SGD con los gradientes ÷ 65,536: los pesos se mueven {sgd:.1e}× la distancia — deja de aprender',
    'SGD: the weights move {sgd:.3f}× as far — the learning rate was in effect cut by 4':
        'SGD: los pesos se mueven {sgd:.3f}× la distancia — la tasa de aprendizaje quedó, en la práctica, dividida por 4',
    "Trainer(m={m}, A={A}) applies the gradient gastudy's engine computes (tokens)":
        'Trainer(m={m}, A={A}) aplica el gradiente que calcula el motor de gastudy (tokens)',
    "Transformers' offload runs where pinned memory exists; without an accelerator it fails, gastudy does not":
        'el offload de Transformers funciona donde hay memoria fijada; sin acelerador falla, el de gastudy no',
    'Transformers, offload=True ({value}): {hf_offload}':
        'Transformers, offload=True ({value}): {hf_offload}',
    'a checkpointed layer keeps less than any layer without checkpointing':
        'una capa con checkpointing guarda menos que cualquier capa sin checkpointing',
    'a classifier has one target per sample':
        'un clasificador tiene un objetivo por muestra',
    'a constant divisor A under-weights the short group by size/A':
        'un divisor constante A resta peso al grupo incompleto en la proporción tamaño/A',
    "a forward-only check ({value:.1f} MiB) misses the group's peak ({value2:.1f} MiB)":
        'una comprobación solo de la pasada hacia adelante ({value:.1f} MiB) no ve el pico del grupo ({value2:.1f} MiB)',
    'a mean-of-means update misses the big-batch gradient by {value:.1f}%; tokens by {tokens_gap:.0e}':
        'una actualización con la media de medias se aleja del gradiente del lote grande un {value:.1f} %; tokens, {tokens_gap:.0e}',
    "a per-microbatch mean ÷ gradient_accumulation_steps = gastudy's steps, not the big batch":
        'la media por microlote ÷ gradient_accumulation_steps = el steps de gastudy, no el lote grande',
    'a short last group is recorded with the samples it affected':
        'el último grupo incompleto queda registrado con las muestras a las que afectó',
    'accumulate() stepped the optimizer once for {A} microbatches':
        'accumulate() hizo un paso del optimizador por cada {A} microlotes',
    'activations shrink about 8×; weights, gradients and optimizer state do not change':
        'las activaciones se reducen unas 8×; los pesos, los gradientes y el estado del optimizador no cambian',
    'after the fix the detector is quiet':
        'tras la corrección el detector calla',
    'after training, float32 weights drift further apart than float64 weights':
        'tras el entrenamiento, los pesos en float32 se separan más que los pesos en float64',
    "after {groups} updates the weights equal the engine's (relative gap {gap:.1e} ≤ 1e-5)":
        'tras {groups} actualizaciones los pesos son iguales a los del motor (diferencia relativa {gap:.1e} ≤ 1e-5)',
    'all {checks} checks hold':
        'se cumplen las {checks} comprobaciones',
    'all {found} glossary terms name real library objects':
        'los {found} términos del glosario nombran objetos reales de la biblioteca',
    'all {rows} pitfalls are caught and all {rows} fixes pass':
        'se detectan las {rows} trampas y pasan las {rows} correcciones',
    'and none of them entered any update':
        'y ninguna de ellas entró en ninguna actualización',
    'and on counts {counts} the two gradients differ by {value:.1f}%':
        'y con los recuentos {counts} los dos gradientes difieren un {value:.1f} %',
    'and ran the same number of microbatches':
        'y ejecutó el mismo número de microlotes',
    'and so is the logged loss':
        'y también la pérdida registrada',
    'and the same weights after three groups':
        'y los mismos pesos tras tres grupos',
    'and the scale was halved ({scale_used:g} → {scale_after:g})':
        'y el factor de escala se redujo a la mitad ({scale_used:g} → {scale_after:g})',
    'args.activation_checkpointing = {activation_checkpointing}, kwargs = {activation_checkpointing_kwargs}':
        'args.activation_checkpointing = {activation_checkpointing}, kwargs = {activation_checkpointing_kwargs}',
    "at 'step' {k}: run 1 had seen {value} samples, run 2 {value2}":
        "en el 'paso' {k}: la ejecución 1 había visto {value} muestras, la ejecución 2 {value2}",
    'attempted = applied = scheduler steps (fp32: nothing skipped)':
        'intentadas = aplicadas = pasos del planificador (fp32: no se omitió nada)',
    'autocast on the CPU really computes in float16 / bfloat16':
        'en la CPU, autocast calcula de verdad en float16 / bfloat16',
    'bf16 autocast: {bf16:.1e}, hence its looser tolerance':
        'autocast bf16: {bf16:.1e}, de ahí su tolerancia más holgada',
    'both runs saw the same {value} samples':
        'ambas ejecuciones vieron las mismas {value} muestras',
    'but run 1 made {value} updates and run 2 only {value2} (A = {A}×fewer)':
        'pero la ejecución 1 hizo {value} actualizaciones y la ejecución 2 solo {value2} (A = {A}× menos)',
    'by hand and by the library: {total:,} bytes kept, the same to the byte (without: {total2:,})':
        'a mano y con la biblioteca: {total:,} bytes guardados, idénticos hasta el byte (sin checkpointing: {total2:,})',
    "by the last microbatch {value:.1f} microbatches' activations are alive (A = {A})":
        'en el último microlote siguen vivas las activaciones de {value:.1f} microlotes (A = {A})',
    'bytes = {per_token:,.0f}·T + {per_token_squared:,.0f}·T² {constant:+,.0f}, exactly: linear and quadratic in T':
        'bytes = {per_token:,.0f}·T + {per_token_squared:,.0f}·T² {constant:+,.0f}, exactamente: lineal y cuadrático en T',
    'bytes kept: n=1 < n=2 < n=3 < n=4 < off':
        'bytes guardados: n=1 < n=2 < n=3 < n=4 < desactivado',
    'checkpointing every layer keeps less than 15 % of the bytes, at every m and T':
        'el checkpointing en cada capa guarda menos del 15 % de los bytes, para todo m y T',
    'checkpointing every layer: {ratio:.2f}× the time of no checkpointing — not faster beyond the 5 % noise margin':
        'checkpointing en cada capa: {ratio:.2f}× el tiempo sin checkpointing — no es más rápido más allá del margen de ruido del 5 %',
    'checkpointing keeps the gradient; accumulation keeps it within rounding, except with BatchNorm':
        'el checkpointing conserva el gradiente; la acumulación lo conserva dentro del redondeo, salvo con BatchNorm',
    'checkpointing leaves the gradient unchanged':
        'el checkpointing deja el gradiente sin cambios',
    'clip → unscale: it gets max_norm / scale':
        'recortar → desescalar: se obtiene max_norm / escala',
    "compute_loss: summed loss ÷ num_items_in_batch = gastudy's tokens":
        'compute_loss: pérdida sumada ÷ num_items_in_batch = el tokens de gastudy',
    'counted updates = the formula, for every global batch':
        'actualizaciones contadas = la fórmula, para cada lote global',
    'declared False, the detector fires':
        'declarado False, el detector se dispara',
    'declared True, the update equals the big batch':
        'declarado True, la actualización es igual a la del lote grande',
    'decoded  :':
        'decodificado:',
    'doubling A halves the updates per epoch':
        'duplicar A reduce a la mitad las actualizaciones por época',
    'drop: the {sample_ids} recorded samples {sample_ids2} were not trained':
        'drop: las {sample_ids} muestras registradas {sample_ids2} no se entrenaron',
    'each choice keeps less than none, and both together keep the least':
        'cada opción guarda menos que ninguna, y las dos juntas guardan lo mínimo',
    'each of the 2 replicas processes 16 of them':
        'cada una de las 2 réplicas procesa 16 de ellas',
    'each saves memory, and they combine':
        'cada una ahorra memoria, y se combinan',
    "each update used the engine's learning rate {lrs}":
        'cada actualización usó la tasa de aprendizaje del motor {lrs}',
    'every candidate keeps m × A × D on target':
        'todos los candidatos mantienen m × A × D en el objetivo',
    'every full update holds m·A = {effective_batch} samples':
        'cada actualización completa contiene m·A = {effective_batch} muestras',
    "every group's denominator was known before any forward":
        'el denominador de cada grupo se conocía antes de cualquier pasada hacia adelante',
    'every sample appears in exactly one update':
        'cada muestra aparece exactamente en una actualización',
    'every section is mapped to a chapter of the course':
        'cada sección está asignada a un capítulo del curso',
    'every split processes {target} samples per update':
        'cada división procesa {target} muestras por actualización',
    'every_n_layers=2 checkpoints blocks 1 and 3, the ones chosen by hand':
        'every_n_layers=2 aplica checkpointing a los bloques 1 y 3, los mismos elegidos a mano',
    'expected from the recomputation: about 1.2–1.35× on an idle machine; a ratio near 1 means the update is dominated by something else (Python overhead on a tiny model), or that the machine was busy':
        'lo esperado por el recálculo: unas 1.2–1.35× en una máquina desocupada; una razón cercana a 1 significa que otra cosa domina la actualización (la sobrecarga de Python en un modelo diminuto) o que la máquina estaba ocupada',
    'fastest here: m={m}, A={A} ({ms_per_update:.1f} ms per update)':
        'el más rápido aquí: m={m}, A={A} ({ms_per_update:.1f} ms por actualización)',
    "float32: {fp32:.1e}, within the verifier's tolerance of 1e-4":
        'float32: {fp32:.1e}, dentro de la tolerancia del verificador de 1e-4',
    'float64: the split changes the gradient by {fp64:.1e} (relative)':
        'float64: la división cambia el gradiente en {fp64:.1e} (relativo)',
    'for a CPU tensor, .cpu() returns the very same tensor: save_on_cpu(pin_memory=False) copies nothing':
        'para un tensor de CPU, .cpu() devuelve el mismo tensor: save_on_cpu(pin_memory=False) no copia nada',
    'forgetting zero_grad is invisible in the first update and wrong from the second on':
        'olvidar zero_grad no se nota en la primera actualización y es un error a partir de la segunda',
    'fp16 uses a gradient scaler, bf16 does not':
        'fp16 usa un escalador de gradientes, bf16 no',
    'gastudy, offload=True: ran. {note}':
        'gastudy, offload=True: funcionó. {note}',
    'gradients appear at the first backward':
        'los gradientes aparecen en la primera pasada hacia atrás',
    'in every held-out group (mean gap {value:.1f}%), while the loss differs by {mean_abs_bias:.2g} nats':
        'en cada grupo reservado (diferencia media {value:.1f} %), mientras que la pérdida difiere en {mean_abs_bias:.2g} nats',
    'in float32 the accumulated gradient matches within {tolerance:g} (measured {max_rel_diff:.1e})':
        'en float32 el gradiente acumulado coincide dentro de {tolerance:g} (medido {max_rel_diff:.1e})',
    'ipywidgets and matplotlib are installed (the labs need both)':
        'ipywidgets y matplotlib están instalados (los laboratorios necesitan ambos)',
    'keep adds one short update; drop skips its 6 samples, and both are recorded':
        'keep añade una actualización corta; drop omite sus 6 muestras, y ambas quedan registradas',
    'keep: all {dataset_size} samples were trained, the short group included':
        'keep: se entrenaron las {dataset_size} muestras, incluido el grupo incompleto',
    'later groups run with the smaller scale':
        'los grupos siguientes usan la escala menor',
    'learning rate per update:':
        'tasa de aprendizaje por actualización:',
    'loss_is_scaled_for_ga = False: the gradient is A = {A}× too small':
        'loss_is_scaled_for_ga = False: el gradiente es A = {A}× demasiado pequeño',
    "loss_is_scaled_for_ga = True: the Trainer's update equals gastudy's":
        'loss_is_scaled_for_ga = True: la actualización del Trainer es igual a la de gastudy',
    'lr per update {lrs}, scale used {used}, applied {applied}':
        'lr por actualización {lrs}, escala usada {used}, aplicadas {applied}',
    'm=1 still peaks at {value:.0%} of m={micro_batch}: the peak does not shrink in proportion':
        'm=1 todavía alcanza un pico del {value:.0%} del de m={micro_batch}: el pico no se reduce en proporción',
    'm=2, A=8, D=2 → 32 distinct samples per update (counted)':
        'm=2, A=8, D=2 → 32 muestras distintas por actualización (contadas)',
    'measured = formula + the shared mask, to the byte ({measured_bytes:,} = {formula_bytes:,} + {mask_bytes:,})':
        'medido = fórmula + la máscara compartida, hasta el byte ({measured_bytes:,} = {formula_bytes:,} + {mask_bytes:,})',
    'microbatch {value}: {error}':
        'microlote {value}: {error}',
    'missing: {terms}':
        'faltan: {terms}',
    'multiplying by every device would wrongly claim {naive_count}':
        'multiplicar por cada dispositivo afirmaría erróneamente {naive_count}',
    'n = 2 on 6 layers → layers 1, 3, 5':
        'n = 2 en 6 capas → capas 1, 3, 5',
    'n={every_n_layers}: the model checkpoints layers {checkpointed}':
        'n={every_n_layers}: el modelo aplica checkpointing a las capas {checkpointed}',
    'n={n}: both checkpoint layers {hf_layers} and keep {hf_kept:,} bytes for backward':
        'n={n}: ambos aplican checkpointing a las capas {hf_layers} y guardan {hf_kept:,} bytes para la pasada hacia atrás',
    'no accumulated split beats the real batch by more than measurement noise (30 %)':
        'ninguna división acumulada supera al lote real por más que el ruido de medición (30 %)',
    'no m fits: the fixed part alone exceeds the budget':
        'ningún m cabe: la parte fija por sí sola supera el presupuesto',
    'no optimizer state before the first update':
        'no hay estado del optimizador antes de la primera actualización',
    'offload changes where the inputs wait, not the gradient: identical by hand, in the library and without offload':
        'el offload cambia dónde esperan las entradas, no el gradiente: idéntico a mano, en la biblioteca y sin offload',
    'offload on {device}: {kept_plain:,} bytes kept without it, {kept_offload:,} with it':
        'offload en {device}: {kept_plain:,} bytes guardados sin él, {kept_offload:,} con él',
    'on a full group steps and mean are the same computation (‖g_steps‖ ÷ ‖g_mean‖ = 1)':
        'en un grupo completo steps y mean son el mismo cálculo (‖g_steps‖ ÷ ‖g_mean‖ = 1)',
    'on a short group of 3 with A = 4, steps gives 3/4 of mean: it still divides by A':
        'en un grupo incompleto de 3 con A = 4, steps da 3/4 de mean: sigue dividiendo por A',
    'on the CPU offload moves nothing: the same bytes':
        'en la CPU el offload no mueve nada: los mismos bytes',
    'on the CPU the library leaves offload off: nothing to move':
        'en la CPU la biblioteca deja el offload desactivado: no hay nada que mover',
    'on the GPU offload leaves almost nothing on the device':
        'en la GPU el offload casi no deja nada en el dispositivo',
    "on the GPU, by hand and in the library, the device no longer keeps the blocks' {inputs:,} input bytes":
        'en la GPU, a mano y en la biblioteca, el dispositivo ya no guarda los {inputs:,} bytes de entrada de los bloques',
    'one batch of 32 keeps about 4× the activations of a microbatch of 8 (measured {ratio:.2f}×)':
        'un lote de 32 guarda unas 4× las activaciones de un microlote de 8 (medido {ratio:.2f}×)',
    'one probe per device: the CPU and every GPU present':
        'una sonda por dispositivo: la CPU y cada GPU presente',
    'one scale for the whole group: {value:g} for all {scales} microbatches':
        'una sola escala para todo el grupo: {value:g} en los {scales} microlotes',
    'one skipped update: attempted ≠ applied, the scale halves, the scheduler follows the applied updates':
        'una actualización omitida: intentadas ≠ aplicadas, la escala se reduce a la mitad, el planificador sigue a las actualizaciones aplicadas',
    'optimizer state appears only at the first update (and never with plain SGD)':
        'el estado del optimizador aparece solo en la primera actualización (y nunca con SGD simple)',
    'per microbatch: {wrong_steps} scheduler steps for {applied} updates':
        'por microlote: {wrong_steps} pasos del planificador para {applied} actualizaciones',
    "plain mean of means = gastudy's mean normalization (within 1e-6)":
        'media de medias a mano = la normalización mean de gastudy (dentro de 1e-6)',
    "plain Σ loss_sum ÷ group items = gastudy's tokens normalization (within 1e-6)":
        'Σ loss_sum a mano ÷ objetivos del grupo = la normalización tokens de gastudy (dentro de 1e-6)',
    'questions:':
        'preguntas:',
    'save_on_cpu took over exactly the {inputs:,} bytes the checkpointed blocks keep — still in the same host memory':
        'save_on_cpu se hizo cargo exactamente de los {inputs:,} bytes que guardan los bloques con checkpointing — todavía en la misma memoria del host',
    "scale used by each microbatch's backward:":
        'escala usada en la pasada hacia atrás de cada microlote:',
    'shift_labels of a packed batch count the same {right} items as the padded batch':
        'shift_labels de un lote empaquetado cuenta los mismos {right} objetivos que el lote con relleno',
    'shifting masked-LM labels would drop targets ({wrong} instead of {right})':
        'desplazar las etiquetas de un LM enmascarado perdería objetivos ({wrong} en lugar de {right})',
    'size of the error: the denominator is {value:.1f}% too large, so the loss reads {loss_wrong:.4f} instead of {loss_right:.4f}':
        'tamaño del error: el denominador es un {value:.1f} % demasiado grande, así que la pérdida marca {loss_wrong:.4f} en lugar de {loss_right:.4f}',
    'so 8× the sequence → {ratio:.2f}× the bytes: more than 8× because of the T² part':
        'así que 8× la secuencia → {ratio:.2f}× los bytes: más de 8× por la parte en T²',
    'split-independent models match the big batch; BatchNorm does not':
        'los modelos que no dependen de la división coinciden con el lote grande; BatchNorm no',
    "stepping per microbatch puts update k at the schedule's step (k+1)·A: {accumulation_steps}× too fast":
        'dar el paso por microlote pone la actualización k en el paso (k+1)·A del calendario: {accumulation_steps}× demasiado rápido',
    'steps normalization does not on variable-length data (gap {steps:.3g}, items {items})':
        'la normalización steps no coincide con datos de longitud variable (diferencia {steps:.3g}, objetivos {items})',
    "summed loss ÷ the group's items × A = gastudy's tokens (the big-batch gradient)":
        'pérdida sumada ÷ objetivos del grupo × A = el tokens de gastudy (el gradiente del lote grande)',
    'supervised items per microbatch:':
        'objetivos de predicción por microlote:',
    'supervised items:':
        'objetivos de predicción:',
    'tensor-parallel GPUs are not replicas':
        'las GPU de paralelismo de tensores no son réplicas',
    "the Trainer's checkpointed update = gastudy's un-checkpointed one: {cmp}":
        'la actualización del Trainer con checkpointing = la de gastudy sin checkpointing: {cmp}',
    'the T² part is the attention mask: m × T × T float32 values (4 bytes) in each layer':
        'la parte en T² es la máscara de atención: m × T × T valores float32 (4 bytes) en cada capa',
    "the chosen plan's measured peak fits the budget: {value}":
        'el pico medido del plan elegido cabe en el presupuesto: {value}',
    "the correct loop holds no microbatch's activations at the next microbatch's start":
        'el bucle correcto no guarda las activaciones de ningún microlote cuando empieza el siguiente',
    'the correct loop matches the big batch at every update':
        'el bucle correcto coincide con el lote grande en cada actualización',
    "the default answer's numbers support its text":
        'los números de la respuesta por defecto respaldan su texto',
    'the detector fires on both zero_grad mistakes':
        'el detector se dispara con los dos errores de zero_grad',
    'the detector names the symptom: {value}…':
        'el detector nombra el síntoma: {value}…',
    'the detector recovers the unshifted denominator: one extra item per row':
        'el detector recupera el denominador sin desplazar: un objetivo de más por fila',
    'the detector stays quiet on the correct loop':
        'el detector calla con el bucle correcto',
    'the double-division detector flags the shrunken gradient':
        'el detector de doble división señala el gradiente encogido',
    'the engine stepped the scheduler once per update ({updates})':
        'el motor dio un paso del planificador por actualización ({updates})',
    "the engine's update gave the optimizer exactly the replayed gradient":
        'la actualización del motor entregó al optimizador exactamente el gradiente reproducido',
    "the engine's updates used exactly those denominators {denominators}":
        'las actualizaciones del motor usaron exactamente esos denominadores {denominators}',
    'the five detectors cover the five symptoms':
        'los cinco detectores cubren los cinco síntomas',
    "the fixed part is at least 80 % of every candidate's peak: shrinking m barely helps":
        'la parte fija es al menos el 80 % del pico de cada candidato: reducir m apenas ayuda',
    'the gradient is exactly A = 4× too small':
        'el gradiente es exactamente A = 4× demasiado pequeño',
    "the gradients are identical to the library's, and equal to the un-checkpointed ones within rounding":
        'los gradientes son idénticos a los de la biblioteca, e iguales a los obtenidos sin checkpointing dentro del redondeo',
    'the last group is short: {microbatches} of A = {accumulation_steps} microbatches':
        'el último grupo está incompleto: {microbatches} de A = {accumulation_steps} microlotes',
    'the map lists all {n} sections':
        'el mapa enumera las {n} secciones',
    'the mean of means':
        'la media de medias',
    'the mean of means differs from the token-weighted loss (mean |bias| {mean_abs_bias:.2g} nats)':
        'la media de medias difiere de la pérdida ponderada por tokens (|sesgo| medio {mean_abs_bias:.2g} nats)',
    'the memory-growth detector fires on kept graph-attached losses':
        'el detector de crecimiento de memoria se dispara con pérdidas guardadas unidas al grafo',
    'the microbatch shares of one update sum to 1':
        'las partes de los microlotes en una actualización suman 1',
    "the model's mean loss through accelerator.backward = gastudy's steps normalization":
        'la pérdida media del modelo a través de accelerator.backward = la normalización steps de gastudy',
    'the observed peak is recorded':
        'el pico observado queda registrado',
    'the older spelling gradient_checkpointing_enable(...) picks the same layers, with a deprecation warning':
        'la grafía antigua gradient_checkpointing_enable(...) elige las mismas capas, con un aviso de obsolescencia',
    'the parameters did not move during the group':
        'los parámetros no se movieron durante el grupo',
    'the partition-dependence detector fires on the mean-of-means loop':
        'el detector de dependencia de la partición se dispara con el bucle de media de medias',
    "the plain loop hands the optimizer the gradient gastudy's Accumulator computes on the same microbatches (relative gap {gap:.1e} ≤ 1e-6, float32)":
        'el bucle a mano entrega al optimizador el gradiente que el Accumulator de gastudy calcula con los mismos microlotes (diferencia relativa {gap:.1e} ≤ 1e-6, float32)',
    "the plain scaler loop hands the optimizer gastudy's fp16 gradient (relative gap {gap:.1e} ≤ 1e-6)":
        'el bucle a mano con escalador entrega al optimizador el gradiente fp16 de gastudy (diferencia relativa {gap:.1e} ≤ 1e-6)',
    'the same learning rates {lrs} (no decay after the skip) and scales {used}':
        'las mismas tasas de aprendizaje {lrs} (sin decaimiento tras la omisión) y escalas {used}',
    'the saved JSON reads back to the same record ({name})':
        'el JSON guardado se lee de vuelta como el mismo registro ({name})',
    'the savings multiply':
        'los ahorros se multiplican',
    'the schedule-drift detector fires on the per-microbatch loop':
        'el detector de desfase del calendario se dispara con el bucle que da el paso por microlote',
    'the scheduler stepped only for applied updates':
        'el planificador solo dio pasos en las actualizaciones aplicadas',
    'the weighted mean equals the plain mean over all 2,048 tokens':
        'la media ponderada es igual a la media simple sobre los 2,048 tokens',
    'then AdamW keeps 2 tensors per weight':
        'luego AdamW guarda 2 tensores por peso',
    'token-weighted mean of the 512/1536 example':
        'media ponderada por tokens del ejemplo 512/1536',
    'tokens normalization equals the big batch (gap {tokens:.1e})':
        'la normalización tokens es igual al lote grande (diferencia {tokens:.1e})',
    'torch can use {torch_threads} thread(s)':
        'torch puede usar {torch_threads} hilo(s)',
    'unscale → clip: the optimizer gets min(true norm, max_norm)':
        'desescalar → recortar: el optimizador recibe min(norma real, max_norm)',
    'unscale_ per microbatch is refused at the second microbatch':
        'unscale_ por microlote se rechaza en el segundo microlote',
    'unshifted counting over-counts by exactly one item per row ({wrong} vs {right})':
        'el recuento sin desplazamiento cuenta exactamente un objetivo de más por fila ({wrong} frente a {right})',
    'update 2 was skipped, by hand and by the engine':
        'la actualización 2 se omitió, a mano y en el motor',
    'update {k} was skipped: no parameter changed':
        'la actualización {k} se omitió: ningún parámetro cambió',
    'weights differ after training in both precisions — by far more in float32':
        'tras el entrenamiento los pesos difieren en ambas precisiones — mucho más en float32',
    'with equal counts per microbatch all three normalizations agree':
        'con recuentos iguales por microlote las tres normalizaciones coinciden',
    'with equal counts the two agree':
        'con recuentos iguales las dos coinciden',
    'with ignored prompts the same mistake is invisible':
        'con los prompts ignorados el mismo error es invisible',
    "without AdamW's moments the fixed part drops to {value:.0%} and a plan fits":
        'sin los momentos de AdamW la parte fija baja al {value:.0%} y un plan cabe',
    'without sharding every id repeats on both replicas':
        'sin reparto cada id se repite en las dos réplicas',
    'yet the memory one microbatch keeps differs by {memory_spread:.0f}× between splits':
        'aun así la memoria que guarda un microlote varía {memory_spread:.0f}× entre divisiones',
    'your configuration passes: relative gradient gap {max_rel_diff:.1e} ≤ {tolerance:g}':
        'tu configuración pasa: diferencia relativa del gradiente {max_rel_diff:.1e} ≤ {tolerance:g}',
    'your model passes on your 16 samples (gap {max_rel_diff:.1e})':
        'tu modelo pasa con tus 16 muestras (diferencia {max_rel_diff:.1e})',
    "zeroing per microbatch leaves a gradient {value:.1f}× smaller than the big batch's (A = {A}: between 1/A = {value2:.2f} and 1/√A = {value3:.2f}; measured {ratio:.2f})":
        'poner a cero por microlote deja un gradiente {value:.1f}× menor que el del lote grande (A = {A}: entre 1/A = {value2:.2f} y 1/√A = {value3:.2f}; medido {ratio:.2f})',
    '{dataset_size} samples make ⌈{dataset_size}/{effective_batch}⌉ = {updates} updates':
        '{dataset_size} muestras dan ⌈{dataset_size}/{effective_batch}⌉ = {updates} actualizaciones',
    '{devices} devices, still {distinct} samples per update':
        '{devices} dispositivos, y siguen siendo {distinct} muestras por actualización',
    '{updates_attempted} updates attempted, {updates_applied} applied':
        '{updates_attempted} actualizaciones intentadas, {updates_applied} aplicadas',
    "÷A misses by {steps_gap:.1%}; ÷ the group's tokens is exact to rounding":
        '÷A falla por {steps_gap:.1%}; ÷ los tokens del grupo es exacto salvo redondeo',
    '÷A on variable lengths fails, and the verdict says: use tokens':
        '÷A con longitudes variables falla, y el veredicto dice: usa tokens',
    '…and costs time: two copies per checkpointed layer':
        '…y cuesta tiempo: dos copias por capa con checkpointing',
    '…and dividing by A instead fails on the same batches: {value}…':
        '…y dividir por A en su lugar falla con los mismos lotes: {value}…',
    '…but the microbatch keeps far less for backward':
        '…pero el microlote guarda mucho menos para la pasada hacia atrás',
    'all-reduces in one update of A = {A}: no_sync around forward + backward → {calls}, around the backward only → {calls2}':
        'all-reduces en una actualización con A = {A}: no_sync alrededor de la pasada hacia adelante + hacia atrás → {calls}, solo alrededor de la pasada hacia atrás → {calls2}',
    'backward-only no_sync communicates after every microbatch, exactly like no no_sync at all':
        'un no_sync solo alrededor de la pasada hacia atrás comunica tras cada microlote, exactamente como sin no_sync',
    'deferred: each replica holds the whole gradient':
        'deferred: cada réplica guarda el gradiente completo',
    'deferred: {reductions_per_update:g} reduce-scatters per update, one per FSDP module ({modules})':
        'deferred: {reductions_per_update:g} reduce-scatters por actualización, uno por módulo FSDP ({modules})',
    'every: each replica holds 1/D of the gradient':
        'every: cada réplica guarda 1/D del gradiente',
    'every: {reductions_per_update:g} reduce-scatters per update = A × {modules} modules (A = {A})':
        'every: {reductions_per_update:g} reduce-scatters por actualización = A × {modules} módulos (A = {A})',
    'forward and backward inside no_sync: one all-reduce (per bucket) per update, as in the library':
        'pasadas hacia adelante y hacia atrás dentro de no_sync: un all-reduce (por bucket) por actualización, como en la biblioteca',
    'global denominator = the single-process big batch (relative gap {max_rel_diff:.1e})':
        'denominador global = el lote grande de un solo proceso (diferencia relativa {max_rel_diff:.1e})',
    'sharded: all ids distinct, the update runs':
        'repartido: todos los ids son distintos, la actualización se ejecuta',
    'sync {sync}: the sharded update equals the single-process big batch (relative gap {max_rel_diff:.1e}, fp32 tolerance {tolerance:g}; the naive per-replica mean: {naive_rel_diff:.1e})':
        'sync {sync}: la actualización fragmentada es igual al lote grande de un solo proceso (diferencia relativa {max_rel_diff:.1e}, tolerancia fp32 {tolerance:g}; la media ingenua por réplica: {naive_rel_diff:.1e})',
    'the global denominator is the sum over replicas':
        'el denominador global es la suma sobre las réplicas',
    'the mistake costs communication, not correctness (gap {wrong:.1e}: rounding)':
        'el error cuesta comunicación, no exactitud (diferencia {wrong:.1e}: redondeo)',
    'the naive local mean is off by {max_rel_diff:.1%} when replicas hold {items_per_replica} tokens':
        'la media local ingenua se desvía un {max_rel_diff:.1%} cuando las réplicas tienen {items_per_replica} tokens',
    "the plain loop's gradient = the library's (relative gap {right:.1e})":
        'el gradiente del bucle a mano = el de la biblioteca (diferencia relativa {right:.1e})',
    'unsharded: every id appears on both replicas, and the update is refused':
        'sin repartir: cada id aparece en las dos réplicas, y la actualización se rechaza',
    'with no_sync each update sends the gradient once':
        'con no_sync cada actualización envía el gradiente una sola vez',
    'without no_sync: {calls_per_update:g} all-reduces per update; with it: {calls_per_update2:g} (A = {A})':
        'sin no_sync: {calls_per_update:g} all-reduces por actualización; con él: {calls_per_update2:g} (A = {A})',
}
