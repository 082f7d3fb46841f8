"""Spanish strings of the redraw work (issue 10): progress notes of chapters 00–05 labs.

Part of the es table (merged with strings_es.py). Renderings from :mod:`gastudy.course.i18n.terms`;
``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    'one batch of {batch}':
        'un lote de {batch}',
    '{A} microbatches of {m}':
        '{A} microlotes de {m}',
    "the engine's update":
        'la actualización del motor',
    'drawing the plot':
        'dibujando el gráfico',
    'held-out group {i} of {n}':
        'grupo reservado {i} de {n}',
    'the partition-dependence detector':
        'el detector de dependencia de la partición',
    'the double-division detector':
        'el detector de doble división',
}
