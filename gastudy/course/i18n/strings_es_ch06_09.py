"""The Spanish (es) strings of chapters 06–09's labs and exercises: English text (as written in the
code) → translation. Merged with ``strings_es.py`` by :func:`gastudy.course.i18n.table`; a text
appears in only one module. Renderings of :mod:`gastudy.course.i18n.terms`; ``{fields}`` unchanged;
Latin digits.
"""

STRINGS: dict[str, str] = {
    ' ({ratio}× the forward-only peak)':
        ' ({ratio}× el pico de solo la pasada hacia adelante)',
    '+ attention mask':
        '+ máscara de atención',
    '10 epochs keep the samples seen, not the number of updates.':
        '10 épocas conservan las muestras vistas, no el número de actualizaciones.',
    'A forward-only check peaks at {forward} above the start; the first group with its update peaks at {first}{ratio}: gradients ({gradients}) appear in the backward and optimizer state ({state}) only at the first update.':
        'Una prueba con solo la pasada hacia adelante alcanza un pico de {forward} sobre el inicio; el primer grupo, con su actualización, llega a {first}{ratio}: los gradientes ({gradients}) aparecen en la pasada hacia atrás y el estado del optimizador ({state}) solo en la primera actualización.',
    'A={A} microbatches of m={m} vs one batch':
        'A={A} microlotes de m={m} frente a un solo lote',
    'BatchNorm at m = {m}':
        'BatchNorm con m = {m}',
    'BatchNorm gap at effective batch {n}':
        'Diferencia de BatchNorm con lote efectivo {n}',
    'CK-1 · Bytes kept for backward grow with the batch and the sequence; checkpointing keeps far fewer':
        'CK-1 · Los bytes guardados para la pasada hacia atrás crecen con el lote y la secuencia; el checkpointing guarda muchos menos',
    'CK-2 · Checkpointing combines with accumulation: time and memory of the four choices':
        'CK-2 · El checkpointing se combina con la acumulación: tiempo y memoria de las cuatro opciones',
    'CK-2, CK-3 · Memory against time as n grows: fewer checkpoints, more memory, less recomputation':
        'CK-2, CK-3 · Memoria frente a tiempo al crecer n: menos puntos de control, más memoria, menos recálculo',
    'CK-3 · every_n_layers: the first layer and every n-th after it':
        'CK-3 · every_n_layers: la primera capa y cada n-ésima a partir de ella',
    'CK-4 · Offloading the checkpointed activations to host memory':
        'CK-4 · Descargar las activaciones con checkpointing a la memoria del host',
    'CK-4 · What a checkpointed layer still keeps: the formula against the measurement':
        'CK-4 · Lo que aún guarda una capa con checkpointing: la fórmula frente a la medición',
    'CP':
        'PC',
    'D (processes)':
        'D (procesos)',
    'D={D} processes × m={m} × A={A} = {n} samples (float64)':
        'D={D} procesos × m={m} × A={A} = {n} muestras (float64)',
    'FAILED':
        'FALLÓ',
    'GA-2 · Is accumulation faster? Time one update of 32 samples split three ways':
        'GA-2 · ¿Es más rápida la acumulación? Cronometra una actualización de 32 muestras dividida de tres maneras',
    'KiB / update':
        'KiB / actualización',
    'KiB kept by the checkpointed layers':
        'KiB guardados por las capas con checkpointing',
    'KiB kept for backward':
        'KiB guardados para la pasada hacia atrás',
    'KiB kept on {device}':
        'KiB guardados en {device}',
    'KiB sent per update (per replica)':
        'KiB enviados por actualización (por réplica)',
    'MB-7 · Check the sample ids each replica processed':
        'MB-7 · Comprueba los ids de muestra que procesó cada réplica',
    'MB-7 · D real processes: which loss scaling gives the single-process big-batch gradient?':
        'MB-7 · D procesos reales: ¿qué escalado de la pérdida da el gradiente del lote grande en un solo proceso?',
    'MB-7 · no_sync: communicate once per update instead of once per microbatch':
        'MB-7 · no_sync: comunicar una vez por actualización en lugar de una vez por microlote',
    'MB-8 · Changing the global batch changes the number of updates per epoch':
        'MB-8 · Cambiar el lote global cambia el número de actualizaciones por época',
    "MB-8 · Does A microbatches of m give the big batch's gradient? It depends on the layers.":
        'MB-8 · ¿Dan A microlotes de m el gradiente del lote grande? Depende de las capas.',
    'MB-8 · Same samples, same maths, different order of additions: the size of the difference':
        'MB-8 · Mismas muestras, mismas cuentas, distinto orden de las sumas: el tamaño de la diferencia',
    'MB-9 · A forward that fits proves nothing: watch a whole group, the first update, then the next groups':
        'MB-9 · Una pasada hacia adelante que cabe no prueba nada: observa un grupo entero, la primera actualización y luego los grupos siguientes',
    'MB-9 · Counters keep their device: one probe per device':
        'MB-9 · Los contadores son de su dispositivo: una sonda por dispositivo',
    'MB-9 · The planner: the largest m whose measured peak fits, with A = target ÷ (m × D)':
        'MB-9 · El planificador: el mayor m cuyo pico medido cabe, con A = objetivo ÷ (m × D)',
    'MiB above start ({probe})':
        'MiB sobre el inicio ({probe})',
    'MiB kept for backward (one microbatch)':
        'MiB guardados para la pasada hacia atrás (un microlote)',
    'MiB kept for backward per microbatch':
        'MiB guardados para la pasada hacia atrás por microlote',
    'MiB saved for backward':
        'MiB guardados para la pasada hacia atrás',
    'MiB saved for backward, per microbatch':
        'MiB guardados para la pasada hacia atrás, por microlote',
    'N samples':
        'N muestras',
    "No microbatch size fits: even m={m} (A={A}) peaks at {peak} over the budget of {budget}, while the fixed part is {fixed}. One sample's activations are too large: enable activation checkpointing (every_n_layers), offload, or use shorter sequences.":
        'Ningún tamaño de microlote cabe: incluso m={m} (A={A}) llega a un pico de {peak}, por encima del presupuesto de {budget}, mientras que la parte fija es {fixed}. Las activaciones de una sola muestra son demasiado grandes: activa el checkpointing de activaciones (every_n_layers), la descarga (offload) o usa secuencias más cortas.',
    'No microbatch size fits: weights, gradients and optimizer state alone take {fixed}, over the budget of {budget}. Accumulation cannot help — it only shrinks activations. Shrink the fixed part: a smaller model, an optimizer with less state (SGD, 8-bit), lower-precision weights, or shard them across devices.':
        'Ningún tamaño de microlote cabe: solo los pesos, los gradientes y el estado del optimizador ocupan {fixed}, por encima del presupuesto de {budget}. La acumulación no puede ayudar: solo reduce las activaciones. Reduce la parte fija: un modelo más pequeño, un optimizador con menos estado (SGD, 8 bits), pesos de menor precisión o repartirlos entre dispositivos.',
    'On the CPU offload has nothing to move.':
        'En la CPU la descarga no tiene nada que mover.',
    "On this CPU-only machine the activations already live in host memory: offload has nothing to move, so the bytes kept are the same with and without it (measured above). On a GPU, offload moves each checkpointed layer's input to pinned host memory during the forward (device → host copy) and back during the backward (host → device), on the compute stream: the device keeps almost nothing, and every update pays two copies. Run this notebook on a GPU machine to see the device peak drop and the time rise.":
        'En esta máquina sin GPU las activaciones ya viven en la memoria del host: la descarga no tiene nada que mover, así que los bytes guardados son los mismos con ella y sin ella (medido arriba). En una GPU, la descarga lleva la entrada de cada capa con checkpointing a memoria fijada del host durante la pasada hacia adelante (copia dispositivo → host) y la devuelve durante la pasada hacia atrás (host → dispositivo), en el flujo de cómputo: el dispositivo casi no guarda nada y cada actualización paga dos copias. Ejecuta este cuaderno en una máquina con GPU para ver bajar el pico del dispositivo y subir el tiempo.',
    'Steady state (later groups) peaks at {peak}.':
        'El régimen estable (grupos posteriores) llega a un pico de {peak}.',
    'The next larger m={m} peaked at {peak}.':
        'El siguiente m mayor, m={m}, llegó a un pico de {peak}.',
    'Weights, gradients and optimizer state are {share} of this peak, so shrinking m further barely helps (m={m} peaks at {peak}).':
        'Los pesos, los gradientes y el estado del optimizador son el {share} de este pico, así que reducir m aún más apenas ayuda (m={m} llega a {peak}).',
    'accumulation':
        'acumulación',
    'all-reduce calls per update':
        'llamadas all-reduce por actualización',
    'answer with a list of layer numbers, e.g. [1, 2], got {answer}':
        'responde con una lista de números de capa, p. ej. [1, 2]; recibido: {answer}',
    'answer with a list of microbatch sizes, got {answer}':
        'responde con una lista de tamaños de microlote; recibido: {answer}',
    'answer with a number of bytes, got {answer}':
        'responde con un número de bytes; recibido: {answer}',
    'answer with a number of epochs, got {answer}':
        'responde con un número de épocas; recibido: {answer}',
    'answer with a pair (calls with no_sync, calls without), got {answer}':
        'responde con un par (llamadas con no_sync, llamadas sin él); recibido: {answer}',
    'answer with a whole number of tokens, got {answer}':
        'responde con un número entero de tokens; recibido: {answer}',
    'answer with a whole number of updates, got {answer}':
        'responde con un número entero de actualizaciones; recibido: {answer}',
    'answer with the microbatch size m (an int), got {answer}':
        'responde con el tamaño del microlote m (un entero); recibido: {answer}',
    'at m = {m} the measured gap is {gap}; measure the others with bn_gap(m, 32 // m).':
        'con m = {m} la diferencia medida es {gap}; mide las demás con bn_gap(m, 32 // m).',
    'backward':
        'atrás',
    'backward {at}':
        'atrás {at}',
    'baseline':
        'base',
    'best ms':
        'mejor ms',
    'best of the repeats':
        'la mejor de las repeticiones',
    'best s / update':
        'mejor s / actualización',
    'both':
        'ambos',
    'budget':
        'presupuesto',
    'budget MiB':
        'presupuesto MiB',
    'bytes':
        'bytes',
    'calls / update':
        'llamadas / actualización',
    'checkpoint every layer':
        'checkpointing en cada capa',
    'checkpointed: keeps its input only':
        'con checkpointing: guarda solo su entrada',
    'checkpointing':
        'checkpointing',
    'checkpointing + offload':
        'checkpointing + descarga',
    'choice':
        'opción',
    'count the updates of one epoch in each setting (count_updates) and divide; got {answer}':
        'cuenta las actualizaciones de una época en cada configuración (count_updates) y divide; recibido: {answer}',
    'current − start':
        'actual − inicio',
    'device':
        'dispositivo',
    'device peak':
        'pico del dispositivo',
    'every_n_layers = {n}: checkpointed layers {layers}':
        'every_n_layers = {n}: capas con checkpointing {layers}',
    'exactly 0 (A = 1)':
        'exactamente 0 (A = 1)',
    'fits':
        'cabe',
    'fixed part':
        'parte fija',
    'float32 tolerance':
        'tolerancia de float32',
    'formula':
        'fórmula',
    'forward':
        'adelante',
    'forward {at}':
        'adelante {at}',
    'gap (relative)':
        'diferencia (relativa)',
    'global batch m × A × D (samples per update)':
        'lote global m × A × D (muestras por actualización)',
    'global denominator':
        'denominador global',
    'global denominator: {n} items on every replica; naive: each replica divides by its own count ({counts})':
        'denominador global: {n} objetivos en cada réplica; ingenuo: cada réplica divide por su propio recuento ({counts})',
    'gradient KiB':
        'KiB de gradiente',
    'gradients':
        'gradientes',
    'groups':
        'grupos',
    'hidden':
        'dimensión oculta',
    'kept':
        'guardado',
    'layers':
        'capas',
    'live tensor bytes in the CUDA caching allocator (excludes context and cache)':
        'bytes de tensores vivos en el asignador con caché de CUDA (sin contexto ni caché)',
    'm (A = effective ÷ m)':
        'm (A = efectivo ÷ m)',
    'm (sequence {T})':
        'm (secuencia {T})',
    'm = {m} (gap {gap}); even there BatchNorm does not match the big batch — only m = 32 (no accumulation) does.':
        'm = {m} (diferencia {gap}); ni siquiera ahí BatchNorm coincide con el lote grande: solo m = 32 (sin acumulación) lo hace.',
    'm must divide 32 (2, 4, 8, 16, 32), got {answer}':
        'm debe dividir a 32 (2, 4, 8, 16, 32); recibido: {answer}',
    'm × A (same effective batch)':
        'm × A (mismo lote efectivo)',
    'm={m} × A={A} × D={D} = {n} samples per update':
        'm={m} × A={A} × D={D} = {n} muestras por actualización',
    'm={m}, A={A} (m×A×D = {n}) fits: measured peak {peak} ≤ budget {budget}.':
        'm={m}, A={A} (m×A×D = {n}) cabe: pico medido {peak} ≤ presupuesto {budget}.',
    'max |Δw| after {n} updates':
        'máx. |Δw| tras {n} actualizaciones',
    'measured':
        'medido',
    'measured current':
        'actual medido',
    'measured peak':
        'pico medido',
    'measured peak, MiB':
        'pico medido, MiB',
    'measured {measured} bytes: 4 bytes × parameters × 4 (weights, gradients, two AdamW moments), plus a few bytes of step counters.':
        'medidos {measured} bytes: 4 bytes × parámetros × 4 (pesos, gradientes, dos momentos de AdamW), más unos pocos bytes de contadores de pasos.',
    'measured − formula = {extra}; the attention mask (m×T×T bools = {mask}) is one more input, shared by all layers, counted once.':
        'medido − fórmula = {extra}; la máscara de atención (m×T×T booleanos = {mask}) es una entrada más, compartida por todas las capas y contada una vez.',
    'measures':
        'mide',
    'measuring m={m}, A={A} ({i} of {n})':
        'midiendo m={m}, A={A} ({i} de {n})',
    'median':
        'mediana',
    'median ms':
        'mediana ms',
    'model':
        'modelo',
    'ms per update (best repeat)':
        'ms por actualización (mejor repetición)',
    'ms per update (best)':
        'ms por actualización (mejor)',
    'ms per update of 8 samples (best)':
        'ms por actualización de 8 muestras (mejor)',
    'm×A target':
        'objetivo m×A',
    'n = 2 checkpoints only some of the 4 layers: which ones?':
        'n = 2 aplica checkpointing solo a algunas de las 4 capas: ¿a cuáles?',
    'naive local mean':
        'media local ingenua',
    'no':
        'no',
    'no checkpointing':
        'sin checkpointing',
    'no_sync off':
        'no_sync desactivado',
    'no_sync on':
        'no_sync activado',
    'none':
        'ninguno',
    'not checkpointed: keeps everything':
        'sin checkpointing: lo guarda todo',
    'note: {note}':
        'nota: {note}',
    'now':
        'ahora',
    'off':
        'desactivado',
    'offload: {measured} left on {device} instead of {expected}; the layer inputs live in pinned host memory until the backward.':
        'descarga: quedan {measured} en {device} en lugar de {expected}; las entradas de las capas viven en memoria fijada del host hasta la pasada hacia atrás.',
    'one update in {precision}':
        'una actualización en {precision}',
    'one update: A={A}×m={m} vs one batch':
        'una actualización: A={A}×m={m} frente a un solo lote',
    'one-update gap':
        'diferencia en una actualización',
    'optimizer':
        'optimizador',
    'optimizer state':
        'estado del optimizador',
    'peak':
        'pico',
    'peak MiB':
        'pico MiB',
    'peak − start':
        'pico − inicio',
    'per-phase reset':
        'reinicio por fase',
    'phase':
        'fase',
    'plan':
        'plan',
    'preparing configuration {i} of {n}':
        'preparando la configuración {i} de {n}',
    'process resident memory; /proc/self/clear_refs is not writable, so the peak is since start':
        'memoria residente del proceso; /proc/self/clear_refs no se puede escribir, así que el pico es desde el inicio',
    'process resident memory; peak = VmHWM, reset per phase via /proc/self/clear_refs':
        'memoria residente del proceso; pico = VmHWM, reiniciado en cada fase mediante /proc/self/clear_refs',
    'refused with DuplicateSamplesError: {message}':
        'rechazada con DuplicateSamplesError: {message}',
    'relative gap to the big batch':
        'diferencia relativa con el lote grande',
    'relative gradient gap':
        'diferencia relativa del gradiente',
    'repeats':
        'repeticiones',
    'replica':
        'réplica',
    'rerun':
        'recalcula',
    'running the update on {D} processes':
        'ejecutando la actualización en {D} procesos',
    'sample ids of the first update':
        'ids de muestra de la primera actualización',
    'samples / s':
        'muestras / s',
    'samples in the short last group':
        'muestras del último grupo incompleto',
    'samples/s (best)':
        'muestras/s (mejor)',
    'samples/s (median)':
        'muestras/s (mediana)',
    'saved':
        'guardado',
    'saved MiB':
        'MiB guardados',
    'saved activations':
        'activaciones guardadas',
    'sequence length T (m = {m})':
        'longitud de secuencia T (m = {m})',
    'sharded':
        'fragmentado',
    'split':
        'división',
    'spread':
        'dispersión',
    'starting {D} worker processes (once per session)':
        'iniciando {D} procesos de trabajo (una vez por sesión)',
    'supervised items per microbatch':
        'objetivos de predicción por microlote',
    "that drops the short last group; this run keeps it (last_group='keep').":
        "eso descarta el último grupo incompleto; esta ejecución lo conserva (last_group='keep').",
    'that ignores D: each replica takes 48 ÷ 2 samples per update.':
        'eso ignora D: cada réplica toma 48 ÷ 2 muestras por actualización.',
    'that is one copy missing: weights, gradients and two moments.':
        'falta una copia: pesos, gradientes y dos momentos.',
    "that is one replica's own count — the naive local mean.":
        'ese es el recuento propio de una réplica: la media local ingenua.',
    'that is only the weights.':
        'eso son solo los pesos.',
    'that is only weights and gradients: AdamW adds two moments per weight.':
        'eso son solo pesos y gradientes: AdamW añade dos momentos por peso.',
    'that is the measurement including the mask; the question asks for the formula alone.':
        'esa es la medición con la máscara incluida; la pregunta pide solo la fórmula.',
    'the first layer is always checkpointed; then every n-th after it.':
        'la primera capa siempre lleva checkpointing; después, cada n-ésima a partir de ella.',
    'the other way round: no_sync *saves* communication.':
        'al revés: no_sync *ahorra* comunicación.',
    'the trade-off curve: lower-left is better':
        'la curva de compromiso: abajo a la izquierda es mejor',
    'this OS gives only the peak since the process started; per-phase peaks are not available':
        'este sistema operativo solo da el pico desde que empezó el proceso; no hay picos por fase',
    'those are 0-based indices; the course numbers layers from 1 (L1 … L12).':
        'esos son índices desde 0; el curso numera las capas desde 1 (L1 … L12).',
    'throughput: higher is faster':
        'rendimiento: más alto es más rápido',
    'timing, round {i} of {n}':
        'cronometrando, ronda {i} de {n}',
    'tokens/s (median)':
        'tokens/s (mediana)',
    'total':
        'total',
    'unit':
        'unidad',
    'unsharded':
        'sin fragmentar',
    'update applied':
        'actualización aplicada',
    'update {at}':
        'actualización {at}',
    'update {i} of {n} measured':
        'medida la actualización {i} de {n}',
    'updates / epoch (counted)':
        'actualizaciones / época (contadas)',
    'updates per epoch':
        'actualizaciones por época',
    'verifier':
        'verificador',
    'warm-up update':
        'actualización de calentamiento',
    'weights':
        'pesos',
    'weights + gradients + optimizer state':
        'pesos + gradientes + estado del optimizador',
    'what accumulation buys: memory':
        'lo que compra la acumulación: memoria',
    'with':
        'con',
    'without':
        'sin',
    'without checkpointing':
        'sin checkpointing',
    'yes':
        'sí',
    '{answer} is not it: how many samples does one update take (m × A × D)?':
        '{answer} no es: ¿cuántas muestras toma una actualización (m × A × D)?',
    '{answer} is not it: which m divide the per-replica share 48 ÷ D?':
        '{answer} no es: ¿qué valores de m dividen la parte de cada réplica, 48 ÷ D?',
    "{answer} is not it; add up the replicas' counts {items}":
        '{answer} no es; suma los recuentos de las réplicas {items}',
    '{answer} is not it; try layer_selection(12, 3)':
        '{answer} no es; prueba layer_selection(12, 3)',
    "{answer} is not the formula's value; count the checkpointed layers first.":
        '{answer} no es el valor de la fórmula; cuenta primero las capas con checkpointing.',
    '{answer} is not what was measured; run count_with_and_without(2, 6)':
        '{answer} no es lo que se midió; ejecuta count_with_and_without(2, 6)',
    '{answer} is {ratio}× the measured fixed part':
        '{answer} es {ratio}× la parte fija medida',
    '{before} updates before, {per_epoch} per epoch now → {epochs} epochs: twice the samples for the same number of updates. Write that assumption down.':
        'antes {before} actualizaciones, ahora {per_epoch} por época → {epochs} épocas: el doble de muestras para el mismo número de actualizaciones. Anota esa suposición.',
    '{data}: {distinct} distinct ids over {total} samples, {duplicated} on more than one replica':
        '{data}: {distinct} ids distintos en {total} muestras, {duplicated} en más de una réplica',
    '{layers} checkpointed layers × m={m} × T={T} × hidden={hidden} × {bytes} bytes = {formula}; measured {measured} (ratio {ratio}).':
        '{layers} capas con checkpointing × m={m} × T={T} × hidden={hidden} × {bytes} bytes = {formula}; medido {measured} (razón {ratio}).',
    '{layers} layers × 8 × 64 × 128 × 4 = {formula} bytes; measured {measured} = formula + the {mask}-byte mask.':
        '{layers} capas × 8 × 64 × 128 × 4 = {formula} bytes; medido {measured} = fórmula + la máscara de {mask} bytes.',
    '{layers}: the first layer and every third after it.':
        '{layers}: la primera capa y cada tercera a partir de ella.',
    '{model}: one update against the big batch':
        '{model}: una actualización frente al lote grande',
    '{n} updates: ceil(1000 ÷ 48), the last one with a short group.':
        '{n} actualizaciones: ceil(1000 ÷ 48), la última con un grupo incompleto.',
    '{on} and {off}: without no_sync every one of the 6 backwards communicates.':
        '{on} y {off}: sin no_sync cada una de las 6 pasadas hacia atrás se comunica.',
    '{sizes}: every divisor of 48 ÷ 2 = 24, so m × A × 2 = 48 exactly.':
        '{sizes}: todos los divisores de 48 ÷ 2 = 24, así que m × A × 2 = 48 exactamente.',
    "{sum} = {answer}: every replica divides by the whole group's count.":
        '{sum} = {answer}: cada réplica divide por el recuento de todo el grupo.',
    '{updates} updates trained both ways in {precision}':
        '{updates} actualizaciones entrenadas de las dos maneras en {precision}',
}
