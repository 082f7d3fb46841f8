"""Arabic strings of the redraw work (issue 10): progress notes of chapters 00–05 labs.

Part of the ar table (merged with strings_ar.py). Renderings from :mod:`gastudy.course.i18n.terms`;
``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    'one batch of {batch}':
        'دفعة واحدة من {batch}',
    '{A} microbatches of {m}':
        '{A} دفعات مصغّرة من {m}',
    "the engine's update":
        'تحديث المحرّك',
    'drawing the plot':
        'جارٍ رسم المخطط',
    'held-out group {i} of {n}':
        'المجموعة المحجوزة {i} من {n}',
    'the partition-dependence detector':
        'كاشف الاعتماد على التقسيم',
    'the double-division detector':
        'كاشف القسمة المزدوجة',
}
