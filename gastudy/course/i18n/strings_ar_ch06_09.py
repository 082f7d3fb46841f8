"""The Arabic (ar) strings of chapters 06–09's labs and exercises: English text (as written in the
code) → translation. Merged with ``strings_ar.py`` by :func:`gastudy.course.i18n.table`; a text
appears in only one module. Renderings of :mod:`gastudy.course.i18n.terms`; ``{fields}`` unchanged;
Latin digits.
"""

STRINGS: dict[str, str] = {
    ' ({ratio}× the forward-only peak)':
        ' ({ratio}× ذروة التمرير الأمامي وحده)',
    '+ attention mask':
        '+ قناع الانتباه',
    '10 epochs keep the samples seen, not the number of updates.':
        '10 حقب تحافظ على عدد العيّنات المرئية، لا على عدد التحديثات.',
    'A forward-only check peaks at {forward} above the start; the first group with its update peaks at {first}{ratio}: gradients ({gradients}) appear in the backward and optimizer state ({state}) only at the first update.':
        'يبلغ اختبارٌ بالتمرير الأمامي وحده ذروةً قدرها {forward} فوق البداية؛ أمّا المجموعة الأولى مع تحديثها فتبلغ {first}{ratio}: تظهر التدرّجات ({gradients}) في التمرير الخلفي، ولا تظهر حالة المُحسِّن ({state}) إلا عند التحديث الأول.',
    'A={A} microbatches of m={m} vs one batch':
        'A={A} دفعات مصغّرة بحجم m={m} مقابل دفعة واحدة',
    'BatchNorm at m = {m}':
        'BatchNorm عند m = {m}',
    'BatchNorm gap at effective batch {n}':
        'فرق BatchNorm عند دفعة فعّالة قدرها {n}',
    'CK-1 · Bytes kept for backward grow with the batch and the sequence; checkpointing keeps far fewer':
        'CK-1 · البايتات المحفوظة للتمرير الخلفي تكبر مع الدفعة وطول التسلسل؛ ونقاط تفتيش التفعيلات تحفظ أقل بكثير',
    'CK-2 · Checkpointing combines with accumulation: time and memory of the four choices':
        'CK-2 · نقاط التفتيش تجتمع مع التراكم: زمن الخيارات الأربعة وذاكرتها',
    'CK-2, CK-3 · Memory against time as n grows: fewer checkpoints, more memory, less recomputation':
        'CK-2, CK-3 · الذاكرة مقابل الزمن مع ازدياد n: نقاط تفتيش أقل، ذاكرة أكثر، إعادة حساب أقل',
    'CK-3 · every_n_layers: the first layer and every n-th after it':
        'CK-3 · every_n_layers: الطبقة الأولى ثم كل طبقة n بعدها',
    'CK-4 · Offloading the checkpointed activations to host memory':
        'CK-4 · تفريغ التفعيلات ذات نقاط التفتيش إلى ذاكرة المضيف',
    'CK-4 · What a checkpointed layer still keeps: the formula against the measurement':
        'CK-4 · ما تحفظه الطبقة ذات نقطة التفتيش رغم ذلك: الصيغة مقابل القياس',
    'CP':
        'نقطة',
    'D (processes)':
        'D (العمليات)',
    'D={D} processes × m={m} × A={A} = {n} samples (float64)':
        'D={D} عمليات × m={m} × A={A} = {n} عيّنة (float64)',
    'FAILED':
        'فشل',
    'GA-2 · Is accumulation faster? Time one update of 32 samples split three ways':
        'GA-2 · هل التراكم أسرع؟ قِس زمن تحديث واحد من 32 عيّنة مقسومًا بثلاث طرق',
    'KiB / update':
        'KiB / تحديث',
    'KiB kept by the checkpointed layers':
        'KiB التي تحفظها الطبقات ذات نقاط التفتيش',
    'KiB kept for backward':
        'KiB المحفوظة للتمرير الخلفي',
    'KiB kept on {device}':
        'KiB المحفوظة على {device}',
    'KiB sent per update (per replica)':
        'KiB المُرسَلة لكل تحديث (لكل نسخة مكرَّرة)',
    'MB-7 · Check the sample ids each replica processed':
        'MB-7 · افحص معرّفات العيّنات التي عالجتها كل نسخة مكرَّرة',
    'MB-7 · D real processes: which loss scaling gives the single-process big-batch gradient?':
        'MB-7 · D عمليات حقيقية: أيّ تحجيم للخسارة يعطي تدرّج الدفعة الكبيرة في عملية واحدة؟',
    'MB-7 · no_sync: communicate once per update instead of once per microbatch':
        'MB-7 · no_sync: تواصلٌ مرة واحدة لكل تحديث بدل مرة لكل دفعة مصغّرة',
    'MB-8 · Changing the global batch changes the number of updates per epoch':
        'MB-8 · تغيير الدفعة الكلية يغيّر عدد التحديثات في كل حقبة',
    "MB-8 · Does A microbatches of m give the big batch's gradient? It depends on the layers.":
        'MB-8 · هل تعطي A دفعات مصغّرة بحجم m تدرّج الدفعة الكبيرة؟ الأمر يتوقف على الطبقات.',
    'MB-8 · Same samples, same maths, different order of additions: the size of the difference':
        'MB-8 · العيّنات نفسها والرياضيات نفسها وترتيب جمع مختلف: حجم الفرق',
    'MB-9 · A forward that fits proves nothing: watch a whole group, the first update, then the next groups':
        'MB-9 · تمرير أمامي يتّسع في الذاكرة لا يثبت شيئًا: راقب مجموعة كاملة، ثم التحديث الأول، ثم المجموعات التالية',
    'MB-9 · Counters keep their device: one probe per device':
        'MB-9 · لكل جهاز عدّاداته: مِسبار واحد لكل جهاز',
    'MB-9 · The planner: the largest m whose measured peak fits, with A = target ÷ (m × D)':
        'MB-9 · المخطِّط: أكبر m تتّسع ذروته المقيسة، مع A = الهدف ÷ (m × D)',
    'MiB above start ({probe})':
        'MiB فوق البداية ({probe})',
    'MiB kept for backward (one microbatch)':
        'MiB المحفوظة للتمرير الخلفي (دفعة مصغّرة واحدة)',
    'MiB kept for backward per microbatch':
        'MiB المحفوظة للتمرير الخلفي لكل دفعة مصغّرة',
    'MiB saved for backward':
        'MiB المحفوظة للتمرير الخلفي',
    'MiB saved for backward, per microbatch':
        'MiB المحفوظة للتمرير الخلفي، لكل دفعة مصغّرة',
    'N samples':
        'N عيّنة',
    "No microbatch size fits: even m={m} (A={A}) peaks at {peak} over the budget of {budget}, while the fixed part is {fixed}. One sample's activations are too large: enable activation checkpointing (every_n_layers), offload, or use shorter sequences.":
        'لا يتّسع أيّ حجم للدفعة المصغّرة: حتى m={m} (A={A}) تبلغ ذروتها {peak} فتتجاوز الميزانية البالغة {budget}، بينما الجزء الثابت {fixed}. تفعيلات العيّنة الواحدة كبيرة جدًا: فعّل نقاط تفتيش التفعيلات (every_n_layers) أو التفريغ (offload)، أو استخدم تسلسلات أقصر.',
    'No microbatch size fits: weights, gradients and optimizer state alone take {fixed}, over the budget of {budget}. Accumulation cannot help — it only shrinks activations. Shrink the fixed part: a smaller model, an optimizer with less state (SGD, 8-bit), lower-precision weights, or shard them across devices.':
        'لا يتّسع أيّ حجم للدفعة المصغّرة: الأوزان والتدرّجات وحالة المُحسِّن وحدها تأخذ {fixed}، فوق الميزانية البالغة {budget}. التراكم لا يفيد هنا — فهو يقلّص التفعيلات فقط. قلّص الجزء الثابت: نموذج أصغر، أو مُحسِّن بحالة أقل (SGD، 8 بت)، أو أوزان بدقة أدنى، أو جزّئها على الأجهزة.',
    'On the CPU offload has nothing to move.':
        'على المعالج المركزي لا يجد التفريغ ما ينقله.',
    "On this CPU-only machine the activations already live in host memory: offload has nothing to move, so the bytes kept are the same with and without it (measured above). On a GPU, offload moves each checkpointed layer's input to pinned host memory during the forward (device → host copy) and back during the backward (host → device), on the compute stream: the device keeps almost nothing, and every update pays two copies. Run this notebook on a GPU machine to see the device peak drop and the time rise.":
        'على هذا الجهاز الذي لا يملك سوى معالج مركزي تعيش التفعيلات أصلًا في ذاكرة المضيف: لا يجد التفريغ ما ينقله، لذا تبقى البايتات المحفوظة نفسها معه ومن دونه (كما قيس أعلاه). على وحدة GPU ينقل التفريغ مدخل كل طبقة ذات نقطة تفتيش إلى الذاكرة المثبّتة في المضيف أثناء التمرير الأمامي (نسخ من الجهاز إلى المضيف) ثم يعيده أثناء التمرير الخلفي (من المضيف إلى الجهاز)، على مجرى الحساب: لا يحفظ الجهاز تقريبًا شيئًا، ويدفع كل تحديث ثمن نسختين. شغّل هذا الدفتر على جهاز فيه GPU لترى ذروة الجهاز تنخفض والزمن يرتفع.',
    'Steady state (later groups) peaks at {peak}.':
        'تبلغ الحالة المستقرة (المجموعات اللاحقة) ذروة قدرها {peak}.',
    'The next larger m={m} peaked at {peak}.':
        'أمّا m={m}، الأكبر التالي، فبلغت ذروته {peak}.',
    'Weights, gradients and optimizer state are {share} of this peak, so shrinking m further barely helps (m={m} peaks at {peak}).':
        'الأوزان والتدرّجات وحالة المُحسِّن تشكّل {share} من هذه الذروة، لذا لا يكاد تصغير m أكثر يفيد (ذروة m={m} هي {peak}).',
    'accumulation':
        'التراكم',
    'all-reduce calls per update':
        'استدعاءات all-reduce لكل تحديث',
    'answer with a list of layer numbers, e.g. [1, 2], got {answer}':
        'أجب بقائمة من أرقام الطبقات، مثل [1, 2]؛ وصلنا: {answer}',
    'answer with a list of microbatch sizes, got {answer}':
        'أجب بقائمة من أحجام الدفعات المصغّرة؛ وصلنا: {answer}',
    'answer with a number of bytes, got {answer}':
        'أجب بعدد من البايتات؛ وصلنا: {answer}',
    'answer with a number of epochs, got {answer}':
        'أجب بعدد من الحقب؛ وصلنا: {answer}',
    'answer with a pair (calls with no_sync, calls without), got {answer}':
        'أجب بزوج (الاستدعاءات مع no_sync، والاستدعاءات من دونه)؛ وصلنا: {answer}',
    'answer with a whole number of tokens, got {answer}':
        'أجب بعدد صحيح من الرموز (tokens)؛ وصلنا: {answer}',
    'answer with a whole number of updates, got {answer}':
        'أجب بعدد صحيح من التحديثات؛ وصلنا: {answer}',
    'answer with the microbatch size m (an int), got {answer}':
        'أجب بحجم الدفعة المصغّرة m (عدد صحيح)؛ وصلنا: {answer}',
    'at m = {m} the measured gap is {gap}; measure the others with bn_gap(m, 32 // m).':
        'عند m = {m} الفرق المقيس هو {gap}؛ قِس البقية باستخدام bn_gap(m, 32 // m).',
    'backward':
        'خلفي',
    'backward {at}':
        'خلفي {at}',
    'baseline':
        'الأساس',
    'best ms':
        'أفضل ms',
    'best of the repeats':
        'أفضل التكرارات',
    'best s / update':
        'أفضل ث / تحديث',
    'both':
        'كلاهما',
    'budget':
        'الميزانية',
    'budget MiB':
        'الميزانية MiB',
    'bytes':
        'بايت',
    'calls / update':
        'استدعاءات / تحديث',
    'checkpoint every layer':
        'نقطة تفتيش في كل طبقة',
    'checkpointed: keeps its input only':
        'ذات نقطة تفتيش: تحفظ مدخلها فقط',
    'checkpointing':
        'نقاط التفتيش',
    'checkpointing + offload':
        'نقاط التفتيش + التفريغ',
    'choice':
        'الخيار',
    'count the updates of one epoch in each setting (count_updates) and divide; got {answer}':
        'عُدّ تحديثات حقبة واحدة في كل إعداد (count_updates) ثم اقسم؛ وصلنا: {answer}',
    'current − start':
        'الحالي − البداية',
    'device':
        'الجهاز',
    'device peak':
        'ذروة الجهاز',
    'every_n_layers = {n}: checkpointed layers {layers}':
        'every_n_layers = {n}: الطبقات ذات نقاط التفتيش {layers}',
    'exactly 0 (A = 1)':
        'صفر تمامًا (A = 1)',
    'fits':
        'يتّسع',
    'fixed part':
        'الجزء الثابت',
    'float32 tolerance':
        'سماحية float32',
    'formula':
        'الصيغة',
    'forward':
        'أمامي',
    'forward {at}':
        'أمامي {at}',
    'gap (relative)':
        'الفرق (نسبي)',
    'global batch m × A × D (samples per update)':
        'الدفعة الكلية m × A × D (عيّنات لكل تحديث)',
    'global denominator':
        'المقام الكلي',
    'global denominator: {n} items on every replica; naive: each replica divides by its own count ({counts})':
        'المقام الكلي: {n} هدفًا على كل نسخة مكرَّرة؛ الطريقة الساذجة: تقسم كل نسخة على عددها الخاص ({counts})',
    'gradient KiB':
        'KiB التدرّج',
    'gradients':
        'التدرّجات',
    'groups':
        'المجموعات',
    'hidden':
        'البعد الخفي',
    'kept':
        'المحفوظ',
    'layers':
        'الطبقات',
    'live tensor bytes in the CUDA caching allocator (excludes context and cache)':
        'بايتات التنسورات الحيّة في مُخصِّص الذاكرة المؤقت لـ CUDA (دون السياق والذاكرة المؤقتة)',
    'm (A = effective ÷ m)':
        'm (A = الفعّالة ÷ m)',
    'm (sequence {T})':
        'm (التسلسل {T})',
    'm = {m} (gap {gap}); even there BatchNorm does not match the big batch — only m = 32 (no accumulation) does.':
        'm = {m} (الفرق {gap})؛ حتى هناك لا يطابق BatchNorm الدفعة الكبيرة — وحده m = 32 (بلا تراكم) يطابقها.',
    'm must divide 32 (2, 4, 8, 16, 32), got {answer}':
        'يجب أن يقسم m العدد 32 (2, 4, 8, 16, 32)؛ وصلنا: {answer}',
    'm × A (same effective batch)':
        'm × A (الدفعة الفعّالة نفسها)',
    'm={m} × A={A} × D={D} = {n} samples per update':
        'm={m} × A={A} × D={D} = {n} عيّنة لكل تحديث',
    'm={m}, A={A} (m×A×D = {n}) fits: measured peak {peak} ≤ budget {budget}.':
        'm={m}، A={A} (m×A×D = {n}) يتّسع: الذروة المقيسة {peak} ≤ الميزانية {budget}.',
    'max |Δw| after {n} updates':
        'أقصى |Δw| بعد {n} تحديث',
    'measured':
        'المقيس',
    'measured current':
        'الحالي المقيس',
    'measured peak':
        'الذروة المقيسة',
    'measured peak, MiB':
        'الذروة المقيسة، MiB',
    'measured {measured} bytes: 4 bytes × parameters × 4 (weights, gradients, two AdamW moments), plus a few bytes of step counters.':
        'المقيس {measured} بايت: 4 بايت × المعاملات × 4 (الأوزان، التدرّجات، عزما AdamW)، مع بضعة بايتات لعدّادات الخطوات.',
    'measured − formula = {extra}; the attention mask (m×T×T bools = {mask}) is one more input, shared by all layers, counted once.':
        'المقيس − الصيغة = {extra}؛ قناع الانتباه (m×T×T قيم منطقية = {mask}) مُدخل إضافي تتشاركه كل الطبقات ويُحسب مرة واحدة.',
    'measures':
        'يقيس',
    'measuring m={m}, A={A} ({i} of {n})':
        'قياس m={m}، A={A} ({i} من {n})',
    'median':
        'الوسيط',
    'median ms':
        'الوسيط ms',
    'model':
        'النموذج',
    'ms per update (best repeat)':
        'ms لكل تحديث (أفضل تكرار)',
    'ms per update (best)':
        'ms لكل تحديث (الأفضل)',
    'ms per update of 8 samples (best)':
        'ms لكل تحديث من 8 عيّنات (الأفضل)',
    'm×A target':
        'هدف m×A',
    'n = 2 checkpoints only some of the 4 layers: which ones?':
        'n = 2 يضع نقاط تفتيش في بعض الطبقات الأربع فقط: أيّها؟',
    'naive local mean':
        'المتوسط المحلي الساذج',
    'no':
        'لا',
    'no checkpointing':
        'بلا نقاط تفتيش',
    'no_sync off':
        'no_sync معطَّل',
    'no_sync on':
        'no_sync مفعَّل',
    'none':
        'لا شيء',
    'not checkpointed: keeps everything':
        'بلا نقطة تفتيش: تحفظ كل شيء',
    'note: {note}':
        'ملاحظة: {note}',
    'now':
        'الآن',
    'off':
        'معطَّل',
    'offload: {measured} left on {device} instead of {expected}; the layer inputs live in pinned host memory until the backward.':
        'التفريغ: بقي {measured} على {device} بدل {expected}؛ تعيش مدخلات الطبقات في ذاكرة المضيف المثبّتة حتى التمرير الخلفي.',
    'one update in {precision}':
        'تحديث واحد بدقة {precision}',
    'one update: A={A}×m={m} vs one batch':
        'تحديث واحد: A={A}×m={m} مقابل دفعة واحدة',
    'one-update gap':
        'فرق التحديث الواحد',
    'optimizer':
        'المُحسِّن',
    'optimizer state':
        'حالة المُحسِّن',
    'peak':
        'الذروة',
    'peak MiB':
        'الذروة MiB',
    'peak − start':
        'الذروة − البداية',
    'per-phase reset':
        'إعادة ضبط لكل مرحلة',
    'phase':
        'المرحلة',
    'plan':
        'الخطة',
    'preparing configuration {i} of {n}':
        'تجهيز الإعداد {i} من {n}',
    'process resident memory; /proc/self/clear_refs is not writable, so the peak is since start':
        'الذاكرة المقيمة للعملية؛ لا يمكن الكتابة في /proc/self/clear_refs، لذا تُحسب الذروة منذ البداية',
    'process resident memory; peak = VmHWM, reset per phase via /proc/self/clear_refs':
        'الذاكرة المقيمة للعملية؛ الذروة = VmHWM، يُعاد ضبطها في كل مرحلة عبر /proc/self/clear_refs',
    'refused with DuplicateSamplesError: {message}':
        'رُفض مع DuplicateSamplesError: {message}',
    'relative gap to the big batch':
        'الفرق النسبي عن الدفعة الكبيرة',
    'relative gradient gap':
        'الفرق النسبي في التدرّج',
    'repeats':
        'التكرارات',
    'replica':
        'النسخة المكرَّرة',
    'rerun':
        'إعادة',
    'running the update on {D} processes':
        'تشغيل التحديث على {D} عمليات',
    'sample ids of the first update':
        'معرّفات عيّنات التحديث الأول',
    'samples / s':
        'عيّنة / ث',
    'samples in the short last group':
        'العيّنات في المجموعة الأخيرة الناقصة',
    'samples/s (best)':
        'عيّنة/ث (الأفضل)',
    'samples/s (median)':
        'عيّنة/ث (الوسيط)',
    'saved':
        'المحفوظ',
    'saved MiB':
        'MiB المحفوظة',
    'saved activations':
        'التفعيلات المحفوظة',
    'sequence length T (m = {m})':
        'طول التسلسل T (m = {m})',
    'sharded':
        'مجزّأة',
    'split':
        'التقسيم',
    'spread':
        'التشتّت',
    'starting {D} worker processes (once per session)':
        'بدء {D} عمليات عاملة (مرة واحدة لكل جلسة)',
    'supervised items per microbatch':
        'أهداف التنبؤ لكل دفعة مصغّرة',
    "that drops the short last group; this run keeps it (last_group='keep').":
        "هذا يُسقط المجموعة الأخيرة الناقصة؛ هذا التشغيل يُبقيها (last_group='keep').",
    'that ignores D: each replica takes 48 ÷ 2 samples per update.':
        'هذا يتجاهل D: كل نسخة مكرَّرة تأخذ 48 ÷ 2 عيّنة في كل تحديث.',
    'that is one copy missing: weights, gradients and two moments.':
        'تنقصه نسخة واحدة: الأوزان والتدرّجات وعزمان.',
    "that is one replica's own count — the naive local mean.":
        'هذا عدد نسخة مكرَّرة واحدة وحدها — المتوسط المحلي الساذج.',
    'that is only the weights.':
        'هذه الأوزان وحدها.',
    'that is only weights and gradients: AdamW adds two moments per weight.':
        'هذه الأوزان والتدرّجات وحدها: يضيف AdamW عزمين لكل وزن.',
    'that is the measurement including the mask; the question asks for the formula alone.':
        'هذا هو القياس مع القناع؛ السؤال يطلب الصيغة وحدها.',
    'the first layer is always checkpointed; then every n-th after it.':
        'الطبقة الأولى تحصل دائمًا على نقطة تفتيش؛ ثم كل طبقة n بعدها.',
    'the other way round: no_sync *saves* communication.':
        'العكس تمامًا: no_sync *يوفّر* التواصل.',
    'the trade-off curve: lower-left is better':
        'منحنى المقايضة: الأسفل يسارًا أفضل',
    'this OS gives only the peak since the process started; per-phase peaks are not available':
        'هذا النظام لا يعطي سوى الذروة منذ بدء العملية؛ ذُرى المراحل غير متاحة',
    'those are 0-based indices; the course numbers layers from 1 (L1 … L12).':
        'هذه فهارس تبدأ من 0؛ الدورة ترقّم الطبقات بدءًا من 1 (L1 … L12).',
    'throughput: higher is faster':
        'الإنتاجية: الأعلى أسرع',
    'timing, round {i} of {n}':
        'قياس الزمن، الجولة {i} من {n}',
    'tokens/s (median)':
        'رمز/ث (الوسيط)',
    'total':
        'المجموع',
    'unit':
        'الوحدة',
    'unsharded':
        'غير مجزّأة',
    'update applied':
        'طُبّق التحديث',
    'update {at}':
        'تحديث {at}',
    'update {i} of {n} measured':
        'قيس التحديث {i} من {n}',
    'updates / epoch (counted)':
        'تحديثات / حقبة (معدودة)',
    'updates per epoch':
        'التحديثات في كل حقبة',
    'verifier':
        'المُحقِّق',
    'warm-up update':
        'تحديث الإحماء',
    'weights':
        'الأوزان',
    'weights + gradients + optimizer state':
        'الأوزان + التدرّجات + حالة المُحسِّن',
    'what accumulation buys: memory':
        'ما يشتريه التراكم: الذاكرة',
    'with':
        'مع',
    'without':
        'بدون',
    'without checkpointing':
        'بلا نقاط تفتيش',
    'yes':
        'نعم',
    '{answer} is not it: how many samples does one update take (m × A × D)?':
        '{answer} ليس الجواب: كم عيّنة يأخذ التحديث الواحد (m × A × D)؟',
    '{answer} is not it: which m divide the per-replica share 48 ÷ D?':
        '{answer} ليس الجواب: أيّ قيم m تقسم حصة كل نسخة مكرَّرة 48 ÷ D؟',
    "{answer} is not it; add up the replicas' counts {items}":
        '{answer} ليس الجواب؛ اجمع أعداد النسخ المكرَّرة {items}',
    '{answer} is not it; try layer_selection(12, 3)':
        '{answer} ليس الجواب؛ جرّب layer_selection(12, 3)',
    "{answer} is not the formula's value; count the checkpointed layers first.":
        '{answer} ليست قيمة الصيغة؛ عُدّ الطبقات ذات نقاط التفتيش أولًا.',
    '{answer} is not what was measured; run count_with_and_without(2, 6)':
        '{answer} ليس ما قيس؛ شغّل count_with_and_without(2, 6)',
    '{answer} is {ratio}× the measured fixed part':
        '{answer} يساوي {ratio}× الجزء الثابت المقيس',
    '{before} updates before, {per_epoch} per epoch now → {epochs} epochs: twice the samples for the same number of updates. Write that assumption down.':
        'قبلًا {before} تحديثًا، والآن {per_epoch} في كل حقبة ← {epochs} حقب: ضعف العيّنات للعدد نفسه من التحديثات. دوّن هذا الافتراض.',
    '{data}: {distinct} distinct ids over {total} samples, {duplicated} on more than one replica':
        '{data}: {distinct} معرّفًا مختلفًا في {total} عيّنة، منها {duplicated} على أكثر من نسخة مكرَّرة',
    '{layers} checkpointed layers × m={m} × T={T} × hidden={hidden} × {bytes} bytes = {formula}; measured {measured} (ratio {ratio}).':
        '{layers} طبقات ذات نقاط تفتيش × m={m} × T={T} × hidden={hidden} × {bytes} بايت = {formula}؛ المقيس {measured} (النسبة {ratio}).',
    '{layers} layers × 8 × 64 × 128 × 4 = {formula} bytes; measured {measured} = formula + the {mask}-byte mask.':
        '{layers} طبقات × 8 × 64 × 128 × 4 = {formula} بايت؛ المقيس {measured} = الصيغة + القناع البالغ {mask} بايت.',
    '{layers}: the first layer and every third after it.':
        '{layers}: الطبقة الأولى ثم كل ثالثة بعدها.',
    '{model}: one update against the big batch':
        '{model}: تحديث واحد مقابل الدفعة الكبيرة',
    '{n} updates: ceil(1000 ÷ 48), the last one with a short group.':
        '{n} تحديثًا: ceil(1000 ÷ 48)، وآخرها بمجموعة ناقصة.',
    '{on} and {off}: without no_sync every one of the 6 backwards communicates.':
        '{on} و{off}: من دون no_sync يتواصل كل واحد من التمريرات الخلفية الستة.',
    '{sizes}: every divisor of 48 ÷ 2 = 24, so m × A × 2 = 48 exactly.':
        '{sizes}: كل قواسم 48 ÷ 2 = 24، فيكون m × A × 2 = 48 تمامًا.',
    "{sum} = {answer}: every replica divides by the whole group's count.":
        '{sum} = {answer}: كل نسخة مكرَّرة تقسم على عدد المجموعة كلها.',
    '{updates} updates trained both ways in {precision}':
        '{updates} تحديثًا مُدرَّبًا بالطريقتين بدقة {precision}',
}
