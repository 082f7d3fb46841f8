"""The course's user-visible strings in es: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    ' vs ':
        ' frente a ',
    ' — one extra per row: the first position has no target (shift!)':
        ': uno de más por fila; la primera posición no tiene objetivo (¡el desplazamiento!)',
    '(derived) effective batch':
        '(derivado) lote efectivo',
    '(no rows)':
        '(sin filas)',
    '. Use shift_labels when present, else labels[..., 1:]; skip -100.':
        '. Use shift_labels si existe; si no, labels[..., 1:]; omita los -100.',
    '1 row':
        '1 fila',
    '1/A (steps)':
        '1/A (steps)',
    '125 is the number of microbatches: that schedule would run 4× too fast.':
        '125 es el número de microlotes: ese calendario avanzaría 4 veces demasiado rápido.',
    '1×32 keeps {ratio}× what 4×8 keeps per microbatch.':
        '1×32 guarda {ratio}× lo que guarda 4×8 por microlote.',
    '50 samples in microbatches of 4 make 13 microbatches (the last one short).':
        '50 muestras en microlotes de 4 dan 13 microlotes (el último, incompleto).',
    'A (run 2)':
        'A (ejecución 2)',
    'A GPU is present: chapters 08 and 09 also measure device memory (torch.cuda peaks) and the time cost of offloading.':
        'Hay una GPU: los capítulos 08 y 09 también miden la memoria del dispositivo (picos de torch.cuda) y el coste en tiempo de la descarga.',
    'A collective operation: every process gives a tensor and every process gets all of them. Used to agree on group sizes, sample ids and the global denominator.':
        'Una operación colectiva: cada proceso aporta un tensor y cada proceso los recibe todos. Sirve para acordar los tamaños de grupo, los ids de las muestras y el denominador global.',
    'A collective operation: every process gives a tensor and every process gets back their sum (or mean). DDP all-reduces the gradients after the backward of the last microbatch.':
        'Una operación colectiva: cada proceso aporta un tensor y cada proceso recibe su suma (o su media). DDP hace all-reduce de los gradientes tras la pasada hacia atrás del último microlote.',
    'A last group with fewer than A microbatches: kept with its true denominator or dropped, and its samples recorded.':
        'Un último grupo con menos de A microlotes: se conserva con su denominador real o se descarta, y sus muestras quedan registradas.',
    'A skipped step is attempted, not applied; the scheduler follows applied.':
        'Un paso omitido se intenta pero no se aplica; el planificador sigue a los aplicados.',
    'A tensor the forward pass computes and keeps for the backward pass. Activation memory grows with the microbatch m and the sequence length; it is what accumulation bounds.':
        'Un tensor que la pasada hacia adelante calcula y guarda para la pasada hacia atrás. La memoria de activaciones crece con el microlote m y la longitud de la secuencia; es lo que la acumulación acota.',
    'A × m (same 32 samples)':
        'A × m (las mismas 32 muestras)',
    'An attempted step that really changed the parameters. The scheduler follows these.':
        'Un paso intentado que realmente cambió los parámetros. El planificador sigue a estos.',
    'An optimizer step that was tried; a gradient scaler may skip it.':
        'Un paso del optimizador que se intentó; un escalador de gradientes puede omitirlo.',
    'Built by {command} in {seconds} s.':
        'Generado con {command} en {seconds} s.',
    'CHANGED':
        'CAMBIARON',
    "Communication back-ends of torch.distributed: gloo runs on CPUs (this course's 2-process demos), NCCL between NVIDIA GPUs.":
        'Backends de comunicación de torch.distributed: gloo funciona en CPU (las demostraciones de 2 procesos de este curso) y NCCL entre GPU de NVIDIA.',
    "Computes one microbatch's contribution to the gradients and ADDS it to the gradient tensors; it never changes the parameters.":
        'Calcula la contribución de un microlote a los gradientes y la SUMA a los tensores de gradiente; nunca modifica los parámetros.',
    'Course index':
        'Índice del curso',
    'D (replicas)':
        'D (réplicas)',
    "DDP's context manager that skips the gradient all-reduce; it must cover the forward and the backward of every microbatch but the last, or DDP communicates anyway (measured in 06).":
        'El gestor de contexto de DDP que omite el all-reduce de los gradientes; debe abarcar la pasada hacia adelante y la pasada hacia atrás de todos los microlotes salvo el último, o DDP se comunica de todos modos (se mide en 06).',
    'DIFFER':
        'DIFIEREN',
    'Exercise {key}':
        'Ejercicio {key}',
    'Exercise {key}: {status} — {feedback}':
        'Ejercicio {key}: {status} — {feedback}',
    'False (wrong here)':
        'False (aquí, incorrecto)',
    'GA-1 · accumulate A microbatches of m, compare with one batch of m·A':
        'GA-1 · acumule A microlotes de m y compare con un lote de m·A',
    'GA-1 · activation memory of one microbatch: A×m splits of 32 samples':
        'GA-1 · memoria de activaciones de un microlote: divisiones A×m de 32 muestras',
    'GA-3 · the two knobs, and the groups they make':
        'GA-3 · los dos ajustes y los grupos que forman',
    'GA-4 · tokens vs steps vs mean, against the big batch':
        'GA-4 · tokens, steps y mean frente al lote grande',
    'GA-5 · what counts as one supervised item':
        'GA-5 · qué cuenta como un objetivo de predicción',
    'GA-6 · loss_is_scaled_for_ga: declared right or wrong':
        'GA-6 · loss_is_scaled_for_ga: declarado bien o mal',
    "Glossary: the course's words are the library's words":
        'Glosario: las palabras del curso son las palabras de la biblioteca',
    'Gradient accumulation and activation checkpointing, done right':
        'Acumulación de gradientes y puntos de control de activaciones, bien hechos',
    'Keeping the activations of only some layers and recomputing the rest during backward: less memory, one extra forward of those layers. Also called gradient checkpointing.':
        'Guardar las activaciones de solo algunas capas y recalcular el resto durante la pasada hacia atrás: menos memoria, una pasada hacia adelante adicional de esas capas. También se llama gradient checkpointing.',
    'KiB alive':
        'KiB vivos',
    'KiB saved for backward':
        'KiB guardados para la pasada hacia atrás',
    'MB-1 · one pair of runs, four x-axes':
        'MB-1 · un par de ejecuciones, cuatro ejes x',
    'MB-1 · the two zero_grad mistakes, measured and named':
        'MB-1 · los dos errores de zero_grad, medidos y nombrados',
    'MB-2 · effective batch calculator':
        'MB-2 · calculadora del lote efectivo',
    'MB-2 · same m·A, different memory and time':
        'MB-2 · mismo m·A, distinta memoria y tiempo',
    'MB-3 · mean of means on real variable-length data':
        'MB-3 · media de medias con datos reales de longitud variable',
    'MB-3 · weighted mean vs mean of means':
        'MB-3 · media ponderada frente a media de medias',
    'MB-4 · boundaries and denominator first':
        'MB-4 · primero los límites y el denominador',
    'MB-4 · memory held between microbatches':
        'MB-4 · memoria retenida entre microlotes',
    'MB-4 · the short last group: keep or drop':
        'MB-4 · el último grupo incompleto: conservar o descartar',
    'MB-5 · an injected overflow: skipped update and scale change':
        'MB-5 · un desbordamiento inyectado: actualización omitida y cambio de escala',
    'MB-5 · clip the unscaled gradients':
        'MB-5 · recorte los gradientes desescalados',
    'MB-5 · fp32, bf16 and fp16 (with a scaler) on this machine':
        'MB-5 · fp32, bf16 y fp16 (con escalador) en esta máquina',
    'MB-6 ({title}) is taught in {notebook}.':
        'MB-6 ({title}) se enseña en {notebook}.',
    'MB-6 · the scheduler follows updates, not microbatches':
        'MB-6 · el planificador sigue a las actualizaciones, no a los microlotes',
    "Microbatches per group (the framework knob 'gradient accumulation steps').":
        "Microlotes por grupo (el ajuste 'gradient accumulation steps' de los frameworks).",
    'Moving saved activations to host memory during forward and back for backward (torch.autograd.graph.save_on_cpu): device memory traded for copies.':
        'Mover las activaciones guardadas a la memoria del host durante la pasada hacia adelante y traerlas de vuelta para la pasada hacia atrás (torch.autograd.graph.save_on_cpu): memoria del dispositivo a cambio de copias.',
    'NOT FOUND':
        'NO ENCONTRADO',
    'NOT trained':
        'NO entrenadas',
    "No GPU here: on a GPU the same code autocasts on 'cuda' and fp16/bf16 also save memory and time; on the CPU they only show the numerics.":
        "Aquí no hay GPU: en una GPU el mismo código aplica autocast en 'cuda' y fp16/bf16 también ahorran memoria y tiempo; en la CPU solo muestran el comportamiento numérico.",
    'No GPU: every number in the course is measured on the CPU. Memory is measured as bytes saved for backward (the same quantity a GPU allocator would hold); GPU-only effects (offload copies, device peaks) are explained and skipped.':
        'Sin GPU: todos los números del curso se miden en la CPU. La memoria se mide como bytes guardados para la pasada hacia atrás (la misma cantidad que retendría un asignador de memoria de GPU); los efectos propios de la GPU (copias de descarga, picos del dispositivo) se explican y se omiten.',
    'One backward per microbatch; one update per group of A microbatches.':
        'Una pasada hacia atrás por microlote; una actualización por cada grupo de A microlotes.',
    'One data-parallel copy of the model processing its own share of the samples (D of them). Devices splitting ONE model (tensor/pipeline parallel) are not replicas.':
        'Una copia del modelo en paralelismo de datos que procesa su propia parte de las muestras (D de ellas). Los dispositivos que se reparten UN modelo (paralelismo de tensores o de pipeline) no son réplicas.',
    'One optimizer step: the parameters change once per group, then the gradients are zeroed.':
        'Un paso del optimizador: los parámetros cambian una vez por grupo y después los gradientes se ponen a cero.',
    'Page-locked host memory: the GPU can copy to and from it asynchronously. Offloaded activations are kept there.':
        'Memoria del host bloqueada en páginas: la GPU puede copiar desde y hacia ella de forma asíncrona. Ahí se guardan las activaciones descargadas.',
    'Partial checkpointing: only the first marked layer and every n-th after it are checkpointed (n = 2 → layers 1, 3, 5 …); the others keep their activations.':
        'Checkpointing parcial: solo la primera capa marcada y cada n-ésima después de ella usan puntos de control (n = 2 → capas 1, 3, 5 …); las demás conservan sus activaciones.',
    'Positions that have a target and enter the loss: not padding, not -100, and for a causal LM not the first position of a sequence.':
        'Posiciones que tienen un objetivo y entran en la pérdida: no son relleno, no son -100 y, en un modelo de lenguaje causal, no son la primera posición de una secuencia.',
    'Resident set size: the physical memory a process holds, as the operating system counts it. On the CPU it is the memory measure that includes everything.':
        'Tamaño del conjunto residente (RSS): la memoria física que ocupa un proceso, según la cuenta el sistema operativo. En la CPU es la medida de memoria que lo incluye todo.',
    'Samples per update over all replicas: m × A × D. A count, not a memory or speed ranking.':
        'Muestras por actualización en todas las réplicas: m × A × D. Es un recuento, no una clasificación de memoria ni de velocidad.',
    'Section map: every section of the source documents and its notebook':
        'Mapa de secciones: cada sección de los documentos fuente y su cuaderno',
    'Sharded data parallelism: each replica stores only a shard of parameters, gradients and optimizer state and gathers the rest when needed (PyTorch FSDP, DeepSpeed ZeRO). Each replica still counts in D.':
        'Paralelismo de datos fragmentado: cada réplica guarda solo un fragmento de los parámetros, los gradientes y el estado del optimizador y reúne el resto cuando lo necesita (PyTorch FSDP, DeepSpeed ZeRO). Cada réplica sigue contando en D.',
    'Teaching this in a room? Read the {link}.':
        '¿Va a impartir el curso en un aula? Lea la {link}.',
    'The A microbatches whose contributions make one update. Its boundaries, sample ids and denominator are fixed before its first backward.':
        'Los A microlotes cuyas contribuciones forman una actualización. Sus límites, los ids de sus muestras y su denominador se fijan antes de su primera pasada hacia atrás.',
    "The layer that hands memory to tensors and keeps freed blocks for reuse (PyTorch's caching allocator on a GPU), so memory allocated by tensors and memory reserved differ.":
        'La capa que entrega memoria a los tensores y conserva los bloques liberados para reutilizarlos (el asignador con caché de PyTorch en una GPU); por eso la memoria asignada a tensores y la memoria reservada difieren.',
    'The samples one replica pushes through one forward pass (m of them). Memory is spent per microbatch.':
        'Las muestras que una réplica pasa por una pasada hacia adelante (m de ellas). La memoria se gasta por microlote.',
    'The static edition of the gastudy course: every notebook was executed on {stamp} and every plot and table below is the measurement that run produced. Nothing here needs a kernel; to change the inputs, open the notebooks in JupyterLab.':
        'La edición estática del curso gastudy: cada cuaderno se ejecutó el {stamp} y cada gráfico y tabla que aparece abajo es la medición que produjo esa ejecución. Nada de esto necesita un kernel; para cambiar las entradas, abra los cuadernos en JupyterLab.',
    'The supervised items of the whole group (all microbatches, all replicas); the summed loss is divided by it exactly once.':
        'Los objetivos de predicción de todo el grupo (todos los microlotes, todas las réplicas); la pérdida sumada se divide por él exactamente una vez.',
    "The unit of every loss in the course: cross-entropy with the natural logarithm. Guessing uniformly among the 16 tokens of the course's vocabulary costs ln 16 ≈ 2.77 nats.":
        'La unidad de toda pérdida del curso: entropía cruzada con el logaritmo natural. Adivinar al azar entre los 16 tokens del vocabulario del curso cuesta ln 16 ≈ 2.77 nats.',
    'True (right)':
        'True (correcto)',
    'What the summed loss is divided by: tokens (correct), steps (÷ A) or mean (mean of microbatch means).':
        'Aquello por lo que se divide la pérdida sumada: tokens (correcto), steps (÷ A) o mean (media de las medias de los microlotes).',
    'a constant divisor A would weight it {ratio}× (expected {expected} = {n}/{A})':
        'un divisor constante A le daría un peso de {ratio}× (esperado {expected} = {n}/{A})',
    'acc. steps':
        'pasos de acum.',
    'after unscale (right)':
        'después de unscale (correcto)',
    'all':
        'todos',
    'all {n} rows':
        'las {n} filas',
    'answer':
        'respuesta',
    'answer True or False':
        'responda True o False',
    'answer with a dict with keys {keys}':
        'responda con un diccionario (dict) con las claves {keys}',
    'answer with a list holding exactly these names: {names}':
        'responda con una lista que contenga exactamente estos nombres: {names}',
    'answer with a number':
        'responda con un número',
    'answer with your counting function itself':
        'responda con su propia función de recuento',
    'answer with your update function itself (not its result)':
        'responda con la propia función de actualización (no con su resultado)',
    'applied':
        'aplicada',
    'applied gradient norm':
        'norma del gradiente aplicado',
    'applied update':
        'actualización aplicada',
    'attempted update':
        'actualización intentada',
    'attempted {attempted}, applied {applied}, scheduler steps {scheduler}, backward passes {backward}':
        'intentadas {attempted}, aplicadas {applied}, pasos del planificador {scheduler}, pasadas hacia atrás {backward}',
    'backward passes so far (k)':
        'pasadas hacia atrás hasta ahora (k)',
    'batch/dev':
        'lote/disp.',
    'before unscale (wrong)':
        'antes de unscale (incorrecto)',
    'bias':
        'sesgo',
    'bias of the mean of means: {bias}':
        'sesgo de la media de medias: {bias}',
    'big batch':
        'lote grande',
    'causal, packed (shift_labels)':
        'causal, empaquetado (shift_labels)',
    'causal, padded':
        'causal, con relleno',
    'classification':
        'clasificación',
    'clip before the step, or the step uses unclipped gradients':
        'recorte antes del paso, o el paso usará gradientes sin recortar',
    'clip runs on scaled gradients — unscale_ first':
        'el recorte actúa sobre gradientes escalados: primero unscale_',
    'correct':
        'correcto',
    'count error':
        'error de recuento',
    "counted: {distinct} distinct samples in update 1; each replica's share: {shares}":
        'contado: {distinct} muestras distintas en la actualización 1; la parte de cada réplica: {shares}',
    'data':
        'datos',
    'declared':
        'declarado',
    'declared {declared}, A = {A}: gradient ÷ {k}':
        'declarado {declared}, A = {A}: gradiente ÷ {k}',
    'denominator':
        'denominador',
    'document':
        'documento',
    'drop':
        'descartar',
    'equal counts (ln-mlp)':
        'recuentos iguales (ln-mlp)',
    'equals big batch':
        'igual al lote grande',
    'expected: min(true, max_norm)':
        'esperado: min(verdadera, max_norm)',
    'forget zero_grad':
        'olvidar zero_grad',
    'forward calls while counting: {calls}; engine denominators {state}':
        'llamadas hacia adelante durante el recuento: {calls}; denominadores del motor: {state}',
    'found, {kind}':
        'encontrado, {kind}',
    'framework knob':
        'ajuste del framework',
    'gap':
        'diferencia',
    'gap to fp32 big batch':
        'diferencia con el lote grande en fp32',
    "gap to the group's big batch":
        'diferencia con el lote grande del grupo',
    "give the notebook's name as a string, got {kind}":
        'indique el nombre del cuaderno como cadena (str); se recibió {kind}',
    'gradient':
        'gradiente',
    'gradient gap (mean)':
        'diferencia del gradiente (mean)',
    'gradient gap (tokens)':
        'diferencia del gradiente (tokens)',
    'gradient gap to the big batch (%)':
        'diferencia del gradiente con el lote grande (%)',
    'gradient norm grows towards the big batch':
        'la norma del gradiente crece hacia la del lote grande',
    "gradient size at the step ÷ the big batch's: {ratios}":
        'tamaño del gradiente en el paso ÷ el del lote grande: {ratios}',
    'grads':
        'gradientes',
    'group':
        'grupo',
    'group loss (nats)':
        'pérdida del grupo (nats)',
    'held-out group':
        'grupo reservado',
    'in the code: {where} ({found})':
        'en el código: {where} ({found})',
    'items':
        'objetivos',
    'items 1':
        'objetivos 1',
    'items 2':
        'objetivos 2',
    'items per microbatch':
        'objetivos por microlote',
    'items so far':
        'objetivos hasta ahora',
    'items ÷ denominator (tokens)':
        'objetivos ÷ denominador (tokens)',
    'keep':
        'conservar',
    'keep graph-attached losses':
        'conservar pérdidas unidas al grafo',
    'kind':
        'tipo',
    'labels counted without the shift':
        'etiquetas contadas sin el desplazamiento',
    'last group':
        'último grupo',
    'learning rate used':
        'tasa de aprendizaje usada',
    'log2 scale':
        'escala log2',
    'logged loss':
        'pérdida registrada',
    'logits dtype':
        'tipo de dato de los logits',
    'loop':
        'bucle',
    'loss (mistaken)':
        'pérdida (errónea)',
    'loss (right)':
        'pérdida (correcta)',
    'loss (token-weighted, per update)':
        'pérdida (ponderada por tokens, por actualización)',
    'masked LM':
        'modelo de lenguaje enmascarado',
    'match':
        'coinciden',
    'mean loss':
        'pérdida media',
    'mean loss 1':
        'pérdida media 1',
    'mean loss 2':
        'pérdida media 2',
    'mean of means':
        'media de medias',
    'mean over all tokens':
        'media sobre todos los tokens',
    "mean |bias| = {bias} nats; gradient gap of a 'mean' update: {gap} (tokens: {tokens_gap}, tolerance {tol})":
        "|sesgo| medio = {bias} nats; diferencia del gradiente de una actualización 'mean': {gap} (tokens: {tokens_gap}, tolerancia {tol})",
    'meaning':
        'significado',
    'measured gap':
        'diferencia medida',
    'measured {actual}, expected {expected} within {tol}':
        'medido {actual}, esperado {expected} con tolerancia {tol}',
    'measured: {truth}.':
        'medido: {truth}.',
    'measuring…':
        'midiendo…',
    'measuring… {text}':
        'midiendo… {text}',
    'memory one microbatch keeps (KiB)':
        'memoria que guarda un microlote (KiB)',
    'microbatch':
        'microlote',
    'microbatch (start)':
        'microlote (inicio)',
    'microbatch of group 0':
        'microlote del grupo 0',
    'microbatches':
        'microlotes',
    'microbatches (forward passes)':
        'microlotes (pasadas hacia adelante)',
    'min(true norm, max_norm)':
        'min(norma verdadera, max_norm)',
    'missing here: {missing}; install it with: {command}':
        'aquí falta: {missing}; instálelo con: {command}',
    'mistake':
        'error',
    'mistaken':
        'erróneo',
    'mistaken count':
        'recuento erróneo',
    'ms per update':
        'ms por actualización',
    'norm':
        'norma',
    'norm of the gradient the optimizer used':
        'norma del gradiente que usó el optimizador',
    'normalization':
        'normalización',
    'not attempted yet':
        'aún sin intentar',
    'not {answer}. How many data-parallel replicas do 8 GPUs make if each model spans 2?':
        'no es {answer}. ¿Cuántas réplicas de paralelismo de datos forman 8 GPU si cada modelo ocupa 2?',
    'not {answer}: count optimizer updates, not microbatches.':
        'no es {answer}: cuente actualizaciones del optimizador, no microlotes.',
    'notebook':
        'cuaderno',
    'nothing':
        'nada',
    'on the {name} batch your function raised {error}: {message}':
        'con el lote {name}, su función lanzó {error}: {message}',
    "one microbatch's activations":
        'activaciones de un microlote',
    'optimizer update':
        'actualización del optimizador',
    'optimizer updates':
        'actualizaciones del optimizador',
    'overflow at':
        'desbordamiento en',
    'overflow injected':
        'desbordamiento inyectado',
    'parameters changed':
        'parámetros cambiados',
    'partial':
        'incompleto',
    'passed':
        'superada',
    'per microbatch':
        'por microlote',
    'per update':
        'por actualización',
    'pipeline ∥':
        'pipeline ∥',
    'precision':
        'precisión',
    'rel. gap to big batch':
        'dif. relativa con el lote grande',
    'relative gap':
        'diferencia relativa',
    'relative gap to the big-batch gradient':
        'diferencia relativa con el gradiente del lote grande',
    'release each graph (correct)':
        'liberar cada grafo (correcto)',
    'replica {rep}\n{n} samples':
        'réplica {rep}\n{n} muestras',
    'right':
        'correcto',
    'right count':
        'recuento correcto',
    'right on padded and packed batches, with and without ignored prompts.':
        'correcto en lotes con relleno y empaquetados, con y sin prompts ignorados.',
    'rows':
        'filas',
    'run time':
        'tiempo de ejecución',
    'samples':
        'muestras',
    'samples in the update':
        'muestras en la actualización',
    'samples seen':
        'muestras vistas',
    'saved KiB':
        'KiB guardados',
    'scale after':
        'escala después',
    'scale used':
        'escala usada',
    'scaler':
        'escalador',
    'scaler.update() comes after the step attempt it judges':
        'scaler.update() va después del intento de paso que evalúa',
    'scheduler per microbatch':
        'planificador por microlote',
    'scheduler per update':
        'planificador por actualización',
    'scheduler steps: {steps}':
        'pasos del planificador: {steps}',
    'section':
        'sección',
    'sections':
        'secciones',
    'sequence':
        'secuencia',
    'sequence {seq_len}: {split} keeps {size}':
        'secuencia {seq_len}: {split} guarda {size}',
    'share of the update':
        'parte de la actualización',
    'short last group ({n} of A={A} microbatches), policy {policy}: samples {ids} ':
        'último grupo incompleto ({n} de A={A} microlotes), política {policy}: muestras {ids} ',
    'size relative to the big batch':
        'tamaño relativo al lote grande',
    'skipped':
        'omitida',
    'step':
        'paso',
    'supervise':
        'supervisión',
    'supervised items (the denominator)':
        'objetivos de predicción (el denominador)',
    'supervised items per microbatch: {items}':
        'objetivos de predicción por microlote: {items}',
    'supervised tokens seen':
        'tokens supervisados vistos',
    'tensor ∥':
        'tensor ∥',
    'term':
        'término',
    "the Hugging Face gradient differs from gastudy's ({normalization} normalization): relative gap {gap} (tolerance {tol}), norm ratio {ratio}":
        'el gradiente de Hugging Face difiere del de gastudy (normalización {normalization}): diferencia relativa {gap} (tolerancia {tol}), cociente de normas {ratio}',
    "the Hugging Face gradient matches gastudy's ({normalization} normalization): relative gap {gap} (tolerance {tol}), norm ratio {ratio}":
        'el gradiente de Hugging Face coincide con el de gastudy (normalización {normalization}): diferencia relativa {gap} (tolerancia {tol}), cociente de normas {ratio}',
    'the course, static edition':
        'el curso, edición estática',
    "the gradient at each step is the whole group's big-batch gradient, once per group.":
        'el gradiente de cada paso es el gradiente de lote grande de todo el grupo, una vez por grupo.',
    'the groups divide the data evenly: no short last group':
        'los grupos dividen los datos exactamente: no hay último grupo incompleto',
    'the loss: a small bias':
        'la pérdida: un sesgo pequeño',
    'the same samples padded count {padded} items after the shift; shift_labels count {right}':
        'las mismas muestras con relleno cuentan {padded} objetivos tras el desplazamiento; shift_labels cuenta {right}',
    "the samples' labels counted without the shift":
        'etiquetas de las muestras contadas sin el desplazamiento',
    'the scheduler steps only after an applied optimizer step':
        'el planificador avanza solo después de un paso aplicado del optimizador',
    'the update: a large gap':
        'la actualización: una diferencia grande',
    'time per update (ms, this machine)':
        'tiempo por actualización (ms, esta máquina)',
    'title':
        'título',
    'token-weighted':
        'ponderada por tokens',
    'tokens':
        'tokens',
    'tolerance':
        'tolerancia',
    'tolerance {tol}':
        'tolerancia {tol}',
    'torch.amp.GradScaler: multiplies the fp16 loss by a scale so small gradients do not underflow, divides it out before clipping and the step, skips a step with inf/NaN and lowers the scale.':
        'torch.amp.GradScaler: multiplica la pérdida en fp16 por una escala para que los gradientes pequeños no se pierdan por subdesbordamiento, la deshace antes del recorte y del paso, omite un paso con inf/NaN y reduce la escala.',
    'torch.autocast: runs selected operations (mainly matrix multiplications) in bf16 or fp16 while weights, gradients and optimizer stay float32. It wraps the forward, never the step.':
        'torch.autocast: ejecuta ciertas operaciones (sobre todo multiplicaciones de matrices) en bf16 o fp16 mientras los pesos, los gradientes y el optimizador siguen en float32. Envuelve la pasada hacia adelante, nunca el paso.',
    'trained with their own denominator':
        'entrenadas con su propio denominador',
    'unchanged':
        'sin cambios',
    'unscale once, clip the true gradients, attempt the step, update the scale, then the schedule.':
        'desescalar una vez, recortar los gradientes verdaderos, intentar el paso, actualizar la escala y después el planificador.',
    'update':
        'actualización',
    'updates':
        'actualizaciones',
    'value':
        'valor',
    'variable lengths (tiny-gpt)':
        'longitudes variables (tiny-gpt)',
    'warm-up':
        'calentamiento',
    'weight (mean of means)':
        'peso (media de medias)',
    'weight (tokens)':
        'peso (tokens)',
    'weighted (Σ n·mean / Σ n)':
        'ponderada (Σ n·media / Σ n)',
    'what it shows':
        'qué muestra',
    'with A={answer}: {plan} — not 256.':
        'con A={answer}: {plan}; no 256.',
    'workshop guide':
        'guía del taller',
    'write your answer above (in place of None) and run this cell.':
        'escriba su respuesta arriba (en lugar de None) y ejecute esta celda.',
    'wrong: counting all {devices} devices as replicas would claim {naive} samples per update — tensor/pipeline devices split one model, they add no samples.':
        'incorrecto: contar los {devices} dispositivos como réplicas daría {naive} muestras por actualización; los dispositivos de tensor/pipeline se reparten un modelo y no añaden muestras.',
    'x = {axis}: last x = {values}':
        'x = {axis}: último x = {values}',
    'x-axis':
        'eje x',
    'you counted all 8 GPUs as replicas; two GPUs share one model copy (tensor parallel).':
        'contó las 8 GPU como réplicas; dos GPU comparten una copia del modelo (paralelismo de tensores).',
    'your function raised {error}: {message}':
        'su función lanzó {error}: {message}',
    'zero per microbatch':
        'poner a cero en cada microlote',
    'zero_grad ends the group (before it, the gradients are still needed)':
        'zero_grad cierra el grupo (antes, los gradientes todavía hacen falta)',
    '{answer} is not it; compute (100·1 + 300·2 + 600·3) ÷ 1000.':
        'no es {answer}; calcule (100·1 + 300·2 + 600·3) ÷ 1000.',
    '{answer} is the mean of means; weight each mean by its items.':
        '{answer} es la media de medias; pondere cada media por sus objetivos de predicción.',
    '{control}: only {value} applies on this machine':
        '{control}: en esta máquina solo se aplica {value}',
    '{devices} devices (grey) = D {replicas} × tensor {tp} × pipeline {pp}; {batch} samples per update':
        '{devices} dispositivos (gris) = D {replicas} × tensor {tp} × pipeline {pp}; {batch} muestras por actualización',
    '{key}: you said {value}':
        '{key}: usted respondió {value}',
    '{kind}: {diff} items':
        '{kind}: {diff} objetivos',
    "{name} is not it. Look MB-6 up in the section map above, or call gastudy.course.notebook_for('MB-6').":
        "No es {name}. Busque MB-6 en el mapa de secciones de arriba o llame a gastudy.course.notebook_for('MB-6').",
    '{name}: {got} instead of {right}':
        '{name}: {got} en lugar de {right}',
    '{n} rows':
        '{n} filas',
    '{passes} forward/backward passes, {updates} optimizer updates.':
        '{passes} pasadas hacia adelante y hacia atrás, {updates} actualizaciones del optimizador.',
    '{samples} samples → {updates} updates':
        '{samples} muestras → {updates} actualizaciones',
    '{trained} of {total} samples trained ({policy})':
        '{trained} de {total} muestras entrenadas ({policy})',
    '{truth}: the short last group holds only the last microbatch.':
        '{truth}: el último grupo incompleto contiene solo el último microlote.',
    '{variable}=1 is set':
        '{variable}=1 está definido',
    'Σ n·mean ÷ Σ n = {right}.':
        'Σ n·media ÷ Σ n = {right}.',
    '→ optimizer.step() with G1+…+G{A} (= one batch of {batch}), then zero_grad().   max |Δ| = {abs_diff}, relative {rel_diff} (tolerance {tol} in {dtype}); parameters {state} during the group':
        '→ optimizer.step() con G1+…+G{A} (= un lote de {batch}) y después zero_grad().   |Δ| máx. = {abs_diff}, relativa {rel_diff} (tolerancia {tol} en {dtype}); parámetros {state} durante el grupo',
    '⌈125 microbatches ÷ 4⌉ = {right} updates, one scheduler step each.':
        '⌈125 microlotes ÷ 4⌉ = {right} actualizaciones, un paso del planificador por cada una.',
    '✓ right':
        '✓ correcto',
    '✗ not yet':
        '✗ todavía no',
    '✗ {claim} — this no longer holds. {detail}':
        '✗ {claim}: esto ya no se cumple. {detail}',
    "⤼ skipped: {what}. This cell runs the Hugging Face APIs for real and needs the optional 'hf' extra ({why}). The rest of the chapter does not depend on it.":
        "⤼ omitido: {what}. Esta celda ejecuta de verdad las API de Hugging Face y necesita el extra opcional 'hf' ({why}). El resto del capítulo no depende de ella.",
}
