"""Turkish strings of the redraw work (issue 10): progress notes of chapters 00–05 labs.

Part of the tr table (merged with strings_tr.py). Renderings from :mod:`gastudy.course.i18n.terms`;
``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    'one batch of {batch}':
        '{batch} örneklik tek bir yığın',
    '{A} microbatches of {m}':
        '{m} boyutlu {A} mikro yığın',
    "the engine's update":
        'motorun güncellemesi',
    'drawing the plot':
        'grafik çiziliyor',
    'held-out group {i} of {n}':
        'ayrılmış grup {i} / {n}',
    'the partition-dependence detector':
        'bölünmeye bağımlılık dedektörü',
    'the double-division detector':
        'çift bölme dedektörü',
}
