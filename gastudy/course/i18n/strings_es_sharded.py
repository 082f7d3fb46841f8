"""Spanish strings of chapter 06's sharded section (FSDP2 lab, exercise 06.3): English → Spanish.

Part of the es table (merged with strings_es.py). Renderings from :mod:`gastudy.course.i18n.terms`;
``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    'DDP, no_sync':
        'DDP, no_sync',
    'FSDP2, sync deferred':
        'FSDP2, sincronización diferida (deferred)',
    'FSDP2, sync every':
        'FSDP2, sincronización en cada microlote (every)',
    'MB-7 · Sharded data parallel (FSDP2): synchronize once per update or every microbatch?':
        'MB-7 · Paralelismo de datos fragmentado (FSDP2): ¿sincronizar una vez por actualización o en cada microlote?',
    'DDP, then FSDP2, on {d} processes':
        'primero DDP, luego FSDP2, en {d} procesos',
    'gradient reductions per update':
        'reducciones de gradientes por actualización',
    'peak gradient KiB per replica':
        'pico de gradientes por réplica (KiB)',
    'A = {a}, D = {d} processes (gloo), tiny-gpt in fp32':
        'A = {a}, D = {d} procesos (gloo), tiny-gpt en fp32',
    'DDP all-reduces and FSDP2 reduce-scatters are both gradient reductions; the times are noisy on a shared machine.':
        'Los all-reduce de DDP y los reduce-scatter de FSDP2 son, ambos, reducciones de gradientes; en una máquina '
        'compartida los tiempos fluctúan.',
    'whole gradient':
        'gradiente completo',
    '1/D of it':
        '1/D del total',
    'setting':
        'configuración',
    'reductions / update':
        'reducciones / actualización',
    'all-gathers / update':
        'all-gather / actualización',
    'peak gradient KiB':
        'pico de gradientes KiB',
    'of the whole gradient':
        'fracción del gradiente completo',
    'ms / update':
        'ms / actualización',
    'sync policy':
        'política de sincronización',
    'deferred (last microbatch)':
        'diferida (último microlote)',
    'every microbatch':
        'en cada microlote',
    'answer with a dict with the numbers reduce_scatters and gradient_bytes, got {answer}':
        'responde con un dict con los números reduce_scatters y gradient_bytes; se recibió {answer}',
    '{calls} reduce-scatters (A = {a} backwards × {modules} FSDP modules) and about {held} bytes: each replica '
    'keeps only its 1/D shard of the gradient.':
        '{calls} reduce-scatter (A = {a} pasadas hacia atrás × {modules} módulos FSDP) y unos {held} bytes: cada '
        'réplica guarda solo su fragmento de 1/D del gradiente.',
    "{n} reduce-scatters is the deferred policy's count: with 'every' each of the A backwards reduce-scatters every "
    "FSDP module":
        "{n} reduce-scatter es la cuenta de la política diferida (deferred): con 'every' cada una de las A pasadas "
        "hacia atrás hace reduce-scatter de todos los módulos FSDP",
    "{n} bytes is the whole gradient, what DDP and the deferred policy hold; 'every' keeps only its shard":
        "{n} bytes es el gradiente completo, lo que guardan DDP y la política diferida; 'every' guarda solo su "
        "fragmento",
    'gradient_bytes: you said {n}; divide the whole gradient by D':
        'gradient_bytes: dijiste {n}; divide el gradiente completo entre D',
    "{n} counts the backwards only: each backward reduce-scatters every FSDP module (tiny-gpt's blocks and its root)":
        "{n} cuenta solo las pasadas hacia atrás: cada una hace reduce-scatter de todos los módulos FSDP (los bloques "
        "de tiny-gpt y su raíz)",
    'reduce_scatters: you said {n}; count A × the FSDP modules':
        'reduce_scatters: dijiste {n}; cuenta A × los módulos FSDP',
}
