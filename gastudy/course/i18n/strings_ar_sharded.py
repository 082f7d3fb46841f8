"""Arabic strings of chapter 06's sharded section (FSDP2 lab, exercise 06.3): English → Arabic.

Part of the ar table (merged with strings_ar.py). Renderings from :mod:`gastudy.course.i18n.terms`;
``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    'DDP, no_sync':
        'DDP مع no_sync',
    'FSDP2, sync deferred':
        'FSDP2 بمزامنة مؤجَّلة (deferred)',
    'FSDP2, sync every':
        'FSDP2 بمزامنة عند كل دفعة مصغّرة (every)',
    'MB-7 · Sharded data parallel (FSDP2): synchronize once per update or every microbatch?':
        'MB-7 · توازي البيانات المجزّأ (FSDP2): هل نزامن مرة واحدة لكل تحديث أم عند كل دفعة مصغّرة؟',
    'DDP, then FSDP2, on {d} processes':
        'DDP أولًا ثم FSDP2 على {d} عمليات',
    'gradient reductions per update':
        'اختزالات التدرّجات لكل تحديث',
    'peak gradient KiB per replica':
        'ذروة التدرّجات لكل نسخة مكرَّرة (KiB)',
    'A = {a}, D = {d} processes (gloo), tiny-gpt in fp32':
        'A = {a} و D = {d} عمليات (gloo)، النموذج tiny-gpt بدقة fp32',
    'DDP all-reduces and FSDP2 reduce-scatters are both gradient reductions; the times are noisy on a shared machine.':
        'عمليات all-reduce في DDP وعمليات reduce-scatter في FSDP2 كلتاهما اختزال للتدرّجات؛ والأزمنة متذبذبة على '
        'جهاز مشترك.',
    'whole gradient':
        'التدرّج كاملًا',
    '1/D of it':
        'جزء 1/D منه',
    'setting':
        'الإعداد',
    'reductions / update':
        'اختزالات / تحديث',
    'all-gathers / update':
        'all-gather / تحديث',
    'peak gradient KiB':
        'ذروة التدرّجات KiB',
    'of the whole gradient':
        'نسبةً إلى التدرّج كاملًا',
    'ms / update':
        'ms / تحديث',
    'sync policy':
        'سياسة المزامنة',
    'deferred (last microbatch)':
        'مؤجَّلة (آخر دفعة مصغّرة)',
    'every microbatch':
        'عند كل دفعة مصغّرة',
    'answer with a dict with the numbers reduce_scatters and gradient_bytes, got {answer}':
        'أجب بقاموس dict فيه العددان reduce_scatters و gradient_bytes؛ وصلنا: {answer}',
    '{calls} reduce-scatters (A = {a} backwards × {modules} FSDP modules) and about {held} bytes: each replica '
    'keeps only its 1/D shard of the gradient.':
        '{calls} عملية reduce-scatter (A = {a} تمريرات خلفية × {modules} وحدات FSDP) ونحو {held} بايت: لا تحتفظ كل '
        'نسخة مكرَّرة إلا بجزئها 1/D من التدرّج.',
    "{n} reduce-scatters is the deferred policy's count: with 'every' each of the A backwards reduce-scatters every "
    "FSDP module":
        "العدد {n} هو عدد السياسة المؤجَّلة (deferred): مع 'every' يُجري كل تمرير خلفي من التمريرات A عملية "
        "reduce-scatter لكل وحدة FSDP",
    "{n} bytes is the whole gradient, what DDP and the deferred policy hold; 'every' keeps only its shard":
        "{n} بايت هو التدرّج كاملًا، أي ما يحتفظ به DDP والسياسة المؤجَّلة؛ أما 'every' فلا تحتفظ إلا بجزئها",
    'gradient_bytes: you said {n}; divide the whole gradient by D':
        'gradient_bytes: قلتَ {n}؛ اقسم التدرّج كاملًا على D',
    "{n} counts the backwards only: each backward reduce-scatters every FSDP module (tiny-gpt's blocks and its root)":
        "العدد {n} يعدّ التمريرات الخلفية فقط: كل تمرير خلفي يُجري reduce-scatter لكل وحدة FSDP (كتل tiny-gpt "
        "وجذره)",
    'reduce_scatters: you said {n}; count A × the FSDP modules':
        'reduce_scatters: قلتَ {n}؛ احسب A × عدد وحدات FSDP',
}
