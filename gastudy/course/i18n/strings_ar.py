"""The course's user-visible strings in ar: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    'Built by {command} in {seconds} s.':
        'أُنشئت باستخدام {command} في {seconds} ث.',
    'Course index':
        'فهرس الدورة',
    'Gradient accumulation and activation checkpointing, done right':
        'تراكم التدرّجات ونقاط تفتيش التفعيلات، على الوجه الصحيح',
    'Teaching this in a room? Read the {link}.':
        'هل ستقدّم هذه الدورة في قاعة؟ اقرأ {link}.',
    'The static edition of the gastudy course: every notebook was executed on {stamp} and every plot and table below is the measurement that run produced. Nothing here needs a kernel; to change the inputs, open the notebooks in JupyterLab.':
        'النسخة الثابتة من دورة gastudy: نُفِّذ كل دفتر في {stamp}، وكل رسم وجدول أدناه هو القياس الذي أنتجه ذلك التشغيل. لا يحتاج شيء هنا إلى نواة (kernel)؛ ولتغيير المدخلات افتح الدفاتر في JupyterLab.',
    'notebook':
        'الدفتر',
    'run time':
        'مدة التشغيل',
    'sections':
        'الأقسام',
    'the course, static edition':
        'الدورة، النسخة الثابتة',
    'what it shows':
        'ما يعرضه',
    'workshop guide':
        'دليل الورشة',
}
