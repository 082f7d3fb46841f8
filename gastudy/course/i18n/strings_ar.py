"""The course's user-visible strings in ar: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    ' vs ':
        ' مقابل ',
    ' — one extra per row: the first position has no target (shift!)':
        ' — واحد زائد في كل صف: الموضع الأول لا هدف له (الإزاحة!)',
    '(derived) effective batch':
        '(مشتق) الدفعة الفعّالة',
    '(no rows)':
        '(لا صفوف)',
    '. Use shift_labels when present, else labels[..., 1:]; skip -100.':
        '. استخدم shift_labels إن وُجدت، وإلا labels[..., 1:]؛ وتجاهل \u200e-100.',
    '1 row':
        'صف واحد',
    '1/A (steps)':
        '1/A (steps)',
    '125 is the number of microbatches: that schedule would run 4× too fast.':
        '125 هو عدد الدفعات المصغّرة: بهذا يتقدّم الجدول أسرع بأربع مرات مما ينبغي.',
    '1×32 keeps {ratio}× what 4×8 keeps per microbatch.':
        'يحتفظ 1×32 بـ {ratio}× ما يحتفظ به 4×8 لكل دفعة مصغّرة.',
    '50 samples in microbatches of 4 make 13 microbatches (the last one short).':
        '50 عينة في دفعات مصغّرة من 4 تعطي 13 دفعة مصغّرة (الأخيرة ناقصة).',
    'A (run 2)':
        'A (التشغيل 2)',
    'A GPU is present: chapters 08 and 09 also measure device memory (torch.cuda peaks) and the time cost of offloading.':
        'توجد GPU: يقيس الفصلان 08 و09 أيضًا ذاكرة الجهاز (ذُرى torch.cuda) والكلفة الزمنية للتفريغ.',
    'A collective operation: every process gives a tensor and every process gets all of them. Used to agree on group sizes, sample ids and the global denominator.':
        'عملية جماعية: تقدّم كل عملية موترًا وتحصل كل عملية عليها جميعًا. تُستخدم للاتفاق على أحجام المجموعات ومعرّفات العينات والمقام الكلي.',
    'A collective operation: every process gives a tensor and every process gets back their sum (or mean). DDP all-reduces the gradients after the backward of the last microbatch.':
        'عملية جماعية: تقدّم كل عملية موترًا وتستعيد كل عملية مجموعها (أو متوسطها). يُجري DDP عملية all-reduce على التدرّجات بعد التمرير الخلفي للدفعة المصغّرة الأخيرة.',
    'A last group with fewer than A microbatches: kept with its true denominator or dropped, and its samples recorded.':
        'مجموعة أخيرة فيها أقل من A دفعات مصغّرة: تُبقى بمقامها الحقيقي أو تُحذف، وتُسجَّل عيّناتها.',
    'A skipped step is attempted, not applied; the scheduler follows applied.':
        'الخطوة المتخطّاة مُحاوَلة لا مُطبَّقة؛ والمُجدوِل يتبع الخطوات المُطبَّقة.',
    'A tensor the forward pass computes and keeps for the backward pass. Activation memory grows with the microbatch m and the sequence length; it is what accumulation bounds.':
        'موتر يحسبه التمرير الأمامي ويحتفظ به للتمرير الخلفي. تنمو ذاكرة التفعيلات مع حجم الدفعة المصغّرة m وطول التسلسل؛ وهي ما يحدّه التراكم.',
    'A × m (same 32 samples)':
        'A × m (العينات الـ 32 نفسها)',
    'An attempted step that really changed the parameters. The scheduler follows these.':
        'خطوة مُحاوَلة غيّرت المعاملات فعلًا. والمُجدوِل يتبع هذه الخطوات.',
    'An optimizer step that was tried; a gradient scaler may skip it.':
        'خطوة للمُحسِّن جرت محاولتها؛ وقد يتخطّاها مُحجِّم التدرّجات.',
    'Built by {command} in {seconds} s.':
        'أُنشئت باستخدام {command} في {seconds} ث.',
    'CHANGED':
        'تغيّرت',
    "Communication back-ends of torch.distributed: gloo runs on CPUs (this course's 2-process demos), NCCL between NVIDIA GPUs.":
        'واجهات الاتصال الخلفية في torch.distributed: يعمل gloo على المعالجات المركزية (عروض الدورة ذات العمليتين)، ويعمل NCCL بين وحدات NVIDIA GPU.',
    "Computes one microbatch's contribution to the gradients and ADDS it to the gradient tensors; it never changes the parameters.":
        'يحسب مساهمة دفعة مصغّرة واحدة في التدرّجات و«يضيفها» إلى موترات التدرّج؛ ولا يغيّر المعاملات أبدًا.',
    'Course index':
        'فهرس الدورة',
    'D (replicas)':
        'D (النسخ المكرَّرة)',
    "DDP's context manager that skips the gradient all-reduce; it must cover the forward and the backward of every microbatch but the last, or DDP communicates anyway (measured in 06).":
        'مدير السياق في DDP الذي يتخطّى عملية all-reduce للتدرّجات؛ يجب أن يشمل التمرير الأمامي والخلفي لكل دفعة مصغّرة عدا الأخيرة، وإلا تواصل DDP رغم ذلك (يُقاس في الفصل 06).',
    'DIFFER':
        'مختلفة',
    'Exercise {key}':
        'التمرين {key}',
    'Exercise {key}: {status} — {feedback}':
        'التمرين {key}: {status} — {feedback}',
    'False (wrong here)':
        'False (خطأ هنا)',
    'GA-1 · accumulate A microbatches of m, compare with one batch of m·A':
        'GA-1 · راكِم A دفعات مصغّرة حجم كلٍّ منها m، وقارِن بدفعة واحدة حجمها m·A',
    'GA-1 · activation memory of one microbatch: A×m splits of 32 samples':
        'GA-1 · ذاكرة تفعيلات دفعة مصغّرة واحدة: تقسيمات A×m لـ 32 عينة',
    'GA-3 · the two knobs, and the groups they make':
        'GA-3 · الإعدادان والمجموعات التي يكوّنانها',
    'GA-4 · tokens vs steps vs mean, against the big batch':
        'GA-4 · tokens وsteps وmean مقارنةً بالدفعة الكبيرة',
    'GA-5 · what counts as one supervised item':
        'GA-5 · ما الذي يُعدّ هدف تنبؤ واحدًا',
    'GA-6 · loss_is_scaled_for_ga: declared right or wrong':
        'GA-6 · loss_is_scaled_for_ga: مُصرَّح به صوابًا أو خطأً',
    "Glossary: the course's words are the library's words":
        'المسرد: كلمات الدورة هي كلمات المكتبة',
    'Gradient accumulation and activation checkpointing, done right':
        'تراكم التدرّجات ونقاط تفتيش التفعيلات، على الوجه الصحيح',
    'Keeping the activations of only some layers and recomputing the rest during backward: less memory, one extra forward of those layers. Also called gradient checkpointing.':
        'الاحتفاظ بتفعيلات بعض الطبقات فقط وإعادة حساب الباقي أثناء التمرير الخلفي: ذاكرة أقل، مقابل تمرير أمامي إضافي لتلك الطبقات. ويُسمّى أيضًا gradient checkpointing.',
    'KiB alive':
        'KiB الحيّة',
    'KiB saved for backward':
        'KiB المحفوظة للتمرير الخلفي',
    'MB-1 · one pair of runs, four x-axes':
        'MB-1 · زوج واحد من التشغيلات وأربعة محاور x',
    'MB-1 · the two zero_grad mistakes, measured and named':
        'MB-1 · خطآ zero_grad، مقيسان ومسمّيان',
    'MB-2 · effective batch calculator':
        'MB-2 · حاسبة الدفعة الفعّالة',
    'MB-2 · same m·A, different memory and time':
        'MB-2 · نفس m·A، ذاكرة وزمن مختلفان',
    'MB-3 · mean of means on real variable-length data':
        'MB-3 · متوسط المتوسطات على بيانات حقيقية متغيّرة الطول',
    'MB-3 · weighted mean vs mean of means':
        'MB-3 · المتوسط المرجَّح مقابل متوسط المتوسطات',
    'MB-4 · boundaries and denominator first':
        'MB-4 · الحدود والمقام أولًا',
    'MB-4 · memory held between microbatches':
        'MB-4 · الذاكرة المحتجزة بين الدفعات المصغّرة',
    'MB-4 · the short last group: keep or drop':
        'MB-4 · المجموعة الأخيرة الناقصة: إبقاء أو حذف',
    'MB-5 · an injected overflow: skipped update and scale change':
        'MB-5 · فيضان مُحقَن: تحديث متخطّى وتغيّر في معامل التحجيم',
    'MB-5 · clip the unscaled gradients':
        'MB-5 · قُصَّ التدرّجات بعد إلغاء تحجيمها',
    'MB-5 · fp32, bf16 and fp16 (with a scaler) on this machine':
        'MB-5 · fp32 وbf16 وfp16 (مع مُحجِّم) على هذا الجهاز',
    'MB-6 ({title}) is taught in {notebook}.':
        'يُدرَّس MB-6 ({title}) في {notebook}.',
    'MB-6 · the scheduler follows updates, not microbatches':
        'MB-6 · المُجدوِل يتبع التحديثات لا الدفعات المصغّرة',
    "Microbatches per group (the framework knob 'gradient accumulation steps').":
        "عدد الدفعات المصغّرة في كل مجموعة (إعداد 'gradient accumulation steps' في أُطر العمل).",
    'Moving saved activations to host memory during forward and back for backward (torch.autograd.graph.save_on_cpu): device memory traded for copies.':
        'نقل التفعيلات المحفوظة إلى ذاكرة المضيف أثناء التمرير الأمامي وإعادتها للتمرير الخلفي (torch.autograd.graph.save_on_cpu): ذاكرة الجهاز مقابل عمليات نسخ.',
    'NOT FOUND':
        'غير موجود',
    'NOT trained':
        'لم تُدرَّب',
    "No GPU here: on a GPU the same code autocasts on 'cuda' and fp16/bf16 also save memory and time; on the CPU they only show the numerics.":
        "لا توجد GPU هنا: على GPU يطبّق الكود نفسه autocast على 'cuda' وتوفّر fp16/bf16 الذاكرة والزمن أيضًا؛ أما على المعالج المركزي فتُظهر السلوك العددي فقط.",
    'No GPU: every number in the course is measured on the CPU. Memory is measured as bytes saved for backward (the same quantity a GPU allocator would hold); GPU-only effects (offload copies, device peaks) are explained and skipped.':
        'لا توجد GPU: كل رقم في الدورة يُقاس على المعالج المركزي (CPU). تُقاس الذاكرة بالبايتات المحفوظة للتمرير الخلفي (وهي الكمية نفسها التي يحتفظ بها مُخصِّص ذاكرة GPU)؛ أما الآثار الخاصة بـ GPU (نسخ التفريغ، وذروة ذاكرة الجهاز) فتُشرح وتُتخطّى.',
    'One backward per microbatch; one update per group of A microbatches.':
        'تمرير خلفي واحد لكل دفعة مصغّرة؛ وتحديث واحد لكل مجموعة من A دفعات مصغّرة.',
    'One data-parallel copy of the model processing its own share of the samples (D of them). Devices splitting ONE model (tensor/pipeline parallel) are not replicas.':
        'نسخة من النموذج في توازي البيانات تعالج حصتها من العينات (وعددها D). الأجهزة التي تتقاسم نموذجًا «واحدًا» (توازي الموترات أو خط الأنابيب) ليست نسخًا مكرَّرة.',
    'One optimizer step: the parameters change once per group, then the gradients are zeroed.':
        'خطوة واحدة للمُحسِّن: تتغيّر المعاملات مرة واحدة لكل مجموعة، ثم تُصفَّر التدرّجات.',
    'Page-locked host memory: the GPU can copy to and from it asynchronously. Offloaded activations are kept there.':
        'ذاكرة مضيف مقفلة الصفحات: تستطيع GPU النسخ منها وإليها على نحو غير متزامن. وفيها تُحفظ التفعيلات المُفرَّغة.',
    'Partial checkpointing: only the first marked layer and every n-th after it are checkpointed (n = 2 → layers 1, 3, 5 …); the others keep their activations.':
        'نقاط تفتيش جزئية: لا تُطبَّق نقاط التفتيش إلا على أول طبقة معلَّمة وعلى كل طبقة رقم n بعدها (n = 2 ← الطبقات 1، 3، 5 …)؛ وتحتفظ الطبقات الأخرى بتفعيلاتها.',
    'Positions that have a target and enter the loss: not padding, not -100, and for a causal LM not the first position of a sequence.':
        'المواضع التي لها هدف وتدخل في الخسارة: ليست حشوًا، وليست \u200e-100، وفي النموذج اللغوي السببي ليست الموضع الأول من التسلسل.',
    'Resident set size: the physical memory a process holds, as the operating system counts it. On the CPU it is the memory measure that includes everything.':
        'حجم المجموعة المقيمة (RSS): الذاكرة الفعلية التي تشغلها عملية ما كما يحسبها نظام التشغيل. وعلى المعالج المركزي هو مقياس الذاكرة الذي يشمل كل شيء.',
    'Samples per update over all replicas: m × A × D. A count, not a memory or speed ranking.':
        'عدد العينات لكل تحديث عبر جميع النسخ المكرَّرة: m × A × D. إنه عدد، لا ترتيب للذاكرة أو السرعة.',
    'Section map: every section of the source documents and its notebook':
        'خريطة الأقسام: كل قسم من الوثائق المصدرية والدفتر الذي يدرّسه',
    'Sharded data parallelism: each replica stores only a shard of parameters, gradients and optimizer state and gathers the rest when needed (PyTorch FSDP, DeepSpeed ZeRO). Each replica still counts in D.':
        'توازي البيانات المجزّأ: تخزّن كل نسخة مكرَّرة جزءًا فقط من المعاملات والتدرّجات وحالة المُحسِّن، وتجمع الباقي عند الحاجة (PyTorch FSDP وDeepSpeed ZeRO). وتظل كل نسخة مكرَّرة محسوبة في D.',
    'Teaching this in a room? Read the {link}.':
        'هل ستقدّم هذه الدورة في قاعة؟ اقرأ {link}.',
    'The A microbatches whose contributions make one update. Its boundaries, sample ids and denominator are fixed before its first backward.':
        'الدفعات المصغّرة الـ A التي تكوّن مساهماتها تحديثًا واحدًا. تُحدَّد حدودها ومعرّفات عيّناتها ومقامها قبل أول تمرير خلفي فيها.',
    "The layer that hands memory to tensors and keeps freed blocks for reuse (PyTorch's caching allocator on a GPU), so memory allocated by tensors and memory reserved differ.":
        'الطبقة التي تمنح الموترات ذاكرتها وتحتفظ بالكتل المحرَّرة لإعادة استخدامها (مُخصِّص الذاكرة المؤقت في PyTorch على GPU)، ولذلك تختلف الذاكرة المخصَّصة للموترات عن الذاكرة المحجوزة.',
    'The samples one replica pushes through one forward pass (m of them). Memory is spent per microbatch.':
        'العينات التي تمرّرها نسخة مكرَّرة واحدة في تمرير أمامي واحد (وعددها m). تُستهلك الذاكرة لكل دفعة مصغّرة.',
    'The static edition of the gastudy course: every notebook was executed on {stamp} and every plot and table below is the measurement that run produced. Nothing here needs a kernel; to change the inputs, open the notebooks in JupyterLab.':
        'النسخة الثابتة من دورة gastudy: نُفِّذ كل دفتر في {stamp}، وكل رسم وجدول أدناه هو القياس الذي أنتجه ذلك التشغيل. لا يحتاج شيء هنا إلى نواة (kernel)؛ ولتغيير المدخلات افتح الدفاتر في JupyterLab.',
    'The supervised items of the whole group (all microbatches, all replicas); the summed loss is divided by it exactly once.':
        'أهداف التنبؤ في المجموعة كلها (جميع الدفعات المصغّرة وجميع النسخ المكرَّرة)؛ تُقسَم الخسارة المجموعة عليه مرة واحدة بالضبط.',
    "The unit of every loss in the course: cross-entropy with the natural logarithm. Guessing uniformly among the 16 tokens of the course's vocabulary costs ln 16 ≈ 2.77 nats.":
        'وحدة كل خسارة في الدورة: الإنتروبيا المتقاطعة باللوغاريتم الطبيعي. التخمين المنتظم بين الرموز الـ 16 في مفردات الدورة يكلّف ln 16 ≈ 2.77 nat.',
    'True (right)':
        'True (صحيح)',
    'What the summed loss is divided by: tokens (correct), steps (÷ A) or mean (mean of microbatch means).':
        'ما تُقسَم عليه الخسارة المجموعة: tokens (الصحيح)، أو steps (÷ A)، أو mean (متوسط متوسطات الدفعات المصغّرة).',
    'a constant divisor A would weight it {ratio}× (expected {expected} = {n}/{A})':
        'القاسم الثابت A كان سيعطيها وزنًا قدره {ratio}× (المتوقع {expected} = {n}/{A})',
    'acc. steps':
        'خطوات التراكم',
    'after unscale (right)':
        'بعد unscale (صحيح)',
    'all':
        'الكل',
    'all {n} rows':
        'جميع الصفوف ({n})',
    'answer':
        'الإجابة',
    'answer True or False':
        'أجب بـ True أو False',
    'answer with a dict with keys {keys}':
        'أجب بقاموس (dict) مفاتيحه {keys}',
    'answer with a list holding exactly these names: {names}':
        'أجب بقائمة تضم هذه الأسماء بالضبط: {names}',
    'answer with a number':
        'أجب بعدد',
    'answer with your counting function itself':
        'أجب بدالة العدّ نفسها',
    'answer with your update function itself (not its result)':
        'أجب بدالة التحديث نفسها (لا بنتيجتها)',
    'applied':
        'مُطبَّق',
    'applied gradient norm':
        'معيار التدرّج المُطبَّق',
    'applied update':
        'تحديث مُطبَّق',
    'attempted update':
        'تحديث مُحاوَل',
    'attempted {attempted}, applied {applied}, scheduler steps {scheduler}, backward passes {backward}':
        'المُحاوَلة {attempted}، المُطبَّقة {applied}، خطوات المُجدوِل {scheduler}، التمريرات الخلفية {backward}',
    'backward passes so far (k)':
        'التمريرات الخلفية حتى الآن (k)',
    'batch/dev':
        'الدفعة/الجهاز',
    'before unscale (wrong)':
        'قبل unscale (خطأ)',
    'bias':
        'الانحياز',
    'bias of the mean of means: {bias}':
        'انحياز متوسط المتوسطات: {bias}',
    'big batch':
        'الدفعة الكبيرة',
    'causal, packed (shift_labels)':
        'سببي، محزوم (shift_labels)',
    'causal, padded':
        'سببي، محشوّ',
    'classification':
        'التصنيف',
    'clip before the step, or the step uses unclipped gradients':
        'قُصَّ قبل الخطوة، وإلا استخدمت الخطوة تدرّجات غير مقصوصة',
    'clip runs on scaled gradients — unscale_ first':
        'القصّ يعمل على تدرّجات محجَّمة — استدعِ unscale_ أولًا',
    'correct':
        'صحيح',
    'count error':
        'خطأ العدّ',
    "counted: {distinct} distinct samples in update 1; each replica's share: {shares}":
        'المعدود: {distinct} عينة مختلفة في التحديث 1؛ حصة كل نسخة مكرَّرة: {shares}',
    'data':
        'البيانات',
    'declared':
        'المُصرَّح به',
    'declared {declared}, A = {A}: gradient ÷ {k}':
        'المُصرَّح {declared}، A = {A}: التدرّج ÷ {k}',
    'denominator':
        'المقام',
    'document':
        'الوثيقة',
    'drop':
        'حذف',
    'equal counts (ln-mlp)':
        'أعداد متساوية (ln-mlp)',
    'equals big batch':
        'يساوي الدفعة الكبيرة',
    'expected: min(true, max_norm)':
        'المتوقع: min(الحقيقي، max_norm)',
    'forget zero_grad':
        'نسيان zero_grad',
    'forward calls while counting: {calls}; engine denominators {state}':
        'استدعاءات التمرير الأمامي أثناء العدّ: {calls}؛ مقامات المحرّك: {state}',
    'found, {kind}':
        'موجود، {kind}',
    'framework knob':
        'إعداد إطار العمل',
    'gap':
        'الفرق',
    'gap to fp32 big batch':
        'الفرق عن الدفعة الكبيرة بدقة fp32',
    "gap to the group's big batch":
        'الفرق عن الدفعة الكبيرة للمجموعة',
    "give the notebook's name as a string, got {kind}":
        'أعطِ اسم الدفتر نصًّا (str)؛ وصل نوع {kind}',
    'gradient':
        'التدرّج',
    'gradient gap (mean)':
        'فرق التدرّج (mean)',
    'gradient gap (tokens)':
        'فرق التدرّج (tokens)',
    'gradient gap to the big batch (%)':
        'فرق التدرّج عن الدفعة الكبيرة (%)',
    'gradient norm grows towards the big batch':
        'معيار التدرّج ينمو نحو معيار الدفعة الكبيرة',
    "gradient size at the step ÷ the big batch's: {ratios}":
        'حجم التدرّج عند الخطوة ÷ حجمه في الدفعة الكبيرة: {ratios}',
    'grads':
        'التدرّجات',
    'group':
        'المجموعة',
    'group loss (nats)':
        'خسارة المجموعة (nat)',
    'held-out group':
        'مجموعة محجوزة للتقييم',
    'in the code: {where} ({found})':
        'في الشيفرة: {where} ({found})',
    'items':
        'الأهداف',
    'items 1':
        'الأهداف 1',
    'items 2':
        'الأهداف 2',
    'items per microbatch':
        'الأهداف لكل دفعة مصغّرة',
    'items so far':
        'الأهداف حتى الآن',
    'items ÷ denominator (tokens)':
        'الأهداف ÷ المقام (tokens)',
    'keep':
        'إبقاء',
    'keep graph-attached losses':
        'الاحتفاظ بخسائر مرتبطة بالرسم الحسابي',
    'kind':
        'النوع',
    'labels counted without the shift':
        'عُدَّت التسميات دون الإزاحة',
    'last group':
        'المجموعة الأخيرة',
    'learning rate used':
        'معدّل التعلّم المستخدم',
    'log2 scale':
        'log2 معامل التحجيم',
    'logged loss':
        'الخسارة المسجَّلة',
    'logits dtype':
        'نوع بيانات logits',
    'loop':
        'الحلقة',
    'loss (mistaken)':
        'الخسارة (الخاطئة)',
    'loss (right)':
        'الخسارة (الصحيحة)',
    'loss (token-weighted, per update)':
        'الخسارة (مرجَّحة بالرموز، لكل تحديث)',
    'masked LM':
        'نموذج لغوي مقنَّع',
    'match':
        'متطابقة',
    'mean loss':
        'متوسط الخسارة',
    'mean loss 1':
        'متوسط الخسارة 1',
    'mean loss 2':
        'متوسط الخسارة 2',
    'mean of means':
        'متوسط المتوسطات',
    'mean over all tokens':
        'المتوسط على جميع الرموز',
    "mean |bias| = {bias} nats; gradient gap of a 'mean' update: {gap} (tokens: {tokens_gap}, tolerance {tol})":
        "متوسط |الانحياز| = {bias} nat؛ فرق التدرّج لتحديث 'mean': {gap} (tokens: {tokens_gap}، السماحية {tol})",
    'meaning':
        'المعنى',
    'measured gap':
        'الفرق المقيس',
    'measured {actual}, expected {expected} within {tol}':
        'القيمة المقيسة {actual}، والمتوقعة {expected} ضمن سماحية {tol}',
    'measured: {truth}.':
        'المقيس: {truth}.',
    'measuring…':
        'جارٍ القياس…',
    'measuring… {text}':
        'جارٍ القياس… {text}',
    'memory one microbatch keeps (KiB)':
        'الذاكرة التي تحتفظ بها دفعة مصغّرة واحدة (KiB)',
    'microbatch':
        'الدفعة المصغّرة',
    'microbatch (start)':
        'الدفعة المصغّرة (البداية)',
    'microbatch of group 0':
        'الدفعة المصغّرة من المجموعة 0',
    'microbatches':
        'الدفعات المصغّرة',
    'microbatches (forward passes)':
        'الدفعات المصغّرة (التمريرات الأمامية)',
    'min(true norm, max_norm)':
        'min(المعيار الحقيقي، max_norm)',
    'missing here: {missing}; install it with: {command}':
        'الناقص هنا: {missing}؛ ثبّته بالأمر: {command}',
    'mistake':
        'الخطأ',
    'mistaken':
        'خاطئ',
    'mistaken count':
        'العدّ الخاطئ',
    'ms per update':
        'ms لكل تحديث',
    'norm':
        'المعيار',
    'norm of the gradient the optimizer used':
        'معيار التدرّج الذي استخدمه المُحسِّن',
    'normalization':
        'التطبيع',
    'not attempted yet':
        'لم تُحاوَل بعد',
    'not {answer}. How many data-parallel replicas do 8 GPUs make if each model spans 2?':
        'ليست {answer}. كم نسخة مكرَّرة لتوازي البيانات تكوّنها 8 وحدات GPU إذا امتدّ كل نموذج على وحدتين؟',
    'not {answer}: count optimizer updates, not microbatches.':
        'ليست {answer}: عُدَّ تحديثات المُحسِّن، لا الدفعات المصغّرة.',
    'notebook':
        'الدفتر',
    'nothing':
        'لا شيء',
    'on the {name} batch your function raised {error}: {message}':
        'على الدفعة {name} أطلقت دالتك الخطأ {error}: {message}',
    "one microbatch's activations":
        'تفعيلات دفعة مصغّرة واحدة',
    'optimizer update':
        'تحديث المُحسِّن',
    'optimizer updates':
        'تحديثات المُحسِّن',
    'overflow at':
        'الفيضان عند',
    'overflow injected':
        'فيضان مُحقَن',
    'parameters changed':
        'تغيّرت المعاملات',
    'partial':
        'ناقصة',
    'passed':
        'نجح',
    'per microbatch':
        'لكل دفعة مصغّرة',
    'per update':
        'لكل تحديث',
    'pipeline ∥':
        'خط أنابيب ∥',
    'precision':
        'الدقة',
    'rel. gap to big batch':
        'الفرق النسبي عن الدفعة الكبيرة',
    'relative gap':
        'الفرق النسبي',
    'relative gap to the big-batch gradient':
        'الفرق النسبي عن تدرّج الدفعة الكبيرة',
    'release each graph (correct)':
        'تحرير كل رسم حسابي (صحيح)',
    'replica {rep}\n{n} samples':
        'النسخة المكرَّرة {rep}\n{n} عينة',
    'right':
        'صحيح',
    'right count':
        'العدّ الصحيح',
    'right on padded and packed batches, with and without ignored prompts.':
        'صحيحة على الدفعات المحشوّة والمحزومة، مع المطالبات المُهمَلة وبدونها.',
    'rows':
        'الصفوف',
    'run time':
        'مدة التشغيل',
    'samples':
        'العينات',
    'samples in the update':
        'العينات في التحديث',
    'samples seen':
        'العينات المرئية',
    'saved KiB':
        'KiB المحفوظة',
    'scale after':
        'معامل التحجيم بعده',
    'scale used':
        'معامل التحجيم المستخدم',
    'scaler':
        'المُحجِّم',
    'scaler.update() comes after the step attempt it judges':
        'يأتي scaler.update()\u200e بعد محاولة الخطوة التي يحكم عليها',
    'scheduler per microbatch':
        'المُجدوِل لكل دفعة مصغّرة',
    'scheduler per update':
        'المُجدوِل لكل تحديث',
    'scheduler steps: {steps}':
        'خطوات المُجدوِل: {steps}',
    'section':
        'القسم',
    'sections':
        'الأقسام',
    'sequence':
        'التسلسل',
    'sequence {seq_len}: {split} keeps {size}':
        'التسلسل {seq_len}: \u200f{split} يحتفظ بـ {size}',
    'share of the update':
        'الحصة من التحديث',
    'short last group ({n} of A={A} microbatches), policy {policy}: samples {ids} ':
        'المجموعة الأخيرة الناقصة ({n} من A={A} دفعات مصغّرة)، السياسة {policy}: العينات {ids} ',
    'size relative to the big batch':
        'الحجم نسبةً إلى الدفعة الكبيرة',
    'skipped':
        'متخطّى',
    'step':
        'الخطوة',
    'supervise':
        'الإشراف',
    'supervised items (the denominator)':
        'أهداف التنبؤ (المقام)',
    'supervised items per microbatch: {items}':
        'أهداف التنبؤ لكل دفعة مصغّرة: {items}',
    'supervised tokens seen':
        'الرموز المستهدفة المُعالَجة',
    'tensor ∥':
        'موترات ∥',
    'term':
        'المصطلح',
    "the Hugging Face gradient differs from gastudy's ({normalization} normalization): relative gap {gap} (tolerance {tol}), norm ratio {ratio}":
        'تدرّج Hugging Face يختلف عن تدرّج gastudy (تطبيع {normalization}): الفرق النسبي {gap} (السماحية {tol})، ونسبة المعيارين {ratio}',
    "the Hugging Face gradient matches gastudy's ({normalization} normalization): relative gap {gap} (tolerance {tol}), norm ratio {ratio}":
        'تدرّج Hugging Face يطابق تدرّج gastudy (تطبيع {normalization}): الفرق النسبي {gap} (السماحية {tol})، ونسبة المعيارين {ratio}',
    'the course, static edition':
        'الدورة، النسخة الثابتة',
    "the gradient at each step is the whole group's big-batch gradient, once per group.":
        'التدرّج في كل خطوة هو تدرّج الدفعة الكبيرة للمجموعة كلها، مرة واحدة لكل مجموعة.',
    'the groups divide the data evenly: no short last group':
        'المجموعات تقسم البيانات بالتساوي: لا مجموعة أخيرة ناقصة',
    'the loss: a small bias':
        'الخسارة: انحياز صغير',
    'the same samples padded count {padded} items after the shift; shift_labels count {right}':
        'العينات نفسها محشوّةً تعطي {padded} هدفًا بعد الإزاحة؛ وتعطي shift_labels العدد {right}',
    "the samples' labels counted without the shift":
        'عُدَّت تسميات العينات دون الإزاحة',
    'the scheduler steps only after an applied optimizer step':
        'لا يتقدّم المُجدوِل إلا بعد خطوة مُطبَّقة للمُحسِّن',
    'the update: a large gap':
        'التحديث: فرق كبير',
    'time per update (ms, this machine)':
        'الزمن لكل تحديث (ms، هذا الجهاز)',
    'title':
        'العنوان',
    'token-weighted':
        'مرجَّح بالرموز',
    'tokens':
        'tokens',
    'tolerance':
        'السماحية',
    'tolerance {tol}':
        'السماحية {tol}',
    'torch.amp.GradScaler: multiplies the fp16 loss by a scale so small gradients do not underflow, divides it out before clipping and the step, skips a step with inf/NaN and lowers the scale.':
        'torch.amp.GradScaler: يضرب خسارة fp16 في معامل تحجيم كي لا تتلاشى التدرّجات الصغيرة، ويقسم عليه قبل القصّ والخطوة، ويتخطّى الخطوة التي فيها inf/NaN ويخفض المعامل.',
    'torch.autocast: runs selected operations (mainly matrix multiplications) in bf16 or fp16 while weights, gradients and optimizer stay float32. It wraps the forward, never the step.':
        'torch.autocast: يشغّل عمليات مختارة (ضرب المصفوفات أساسًا) بدقة bf16 أو fp16 بينما تبقى الأوزان والتدرّجات والمُحسِّن بدقة float32. يحيط بالتمرير الأمامي، لا بالخطوة أبدًا.',
    'trained with their own denominator':
        'دُرِّبت بمقامها الخاص',
    'unchanged':
        'لم تتغيّر',
    'unscale once, clip the true gradients, attempt the step, update the scale, then the schedule.':
        'ألغِ التحجيم مرة واحدة، ثم قُصَّ التدرّجات الحقيقية، ثم حاوِل الخطوة، ثم حدِّث معامل التحجيم، ثم المُجدوِل.',
    'update':
        'التحديث',
    'updates':
        'التحديثات',
    'value':
        'القيمة',
    'variable lengths (tiny-gpt)':
        'أطوال متغيّرة (tiny-gpt)',
    'warm-up':
        'الإحماء',
    'weight (mean of means)':
        'الوزن (متوسط المتوسطات)',
    'weight (tokens)':
        'الوزن (tokens)',
    'weighted (Σ n·mean / Σ n)':
        'مرجَّح (Σ n·المتوسط / Σ n)',
    'what it shows':
        'ما يعرضه',
    'with A={answer}: {plan} — not 256.':
        'مع A={answer}: {plan} — وليس 256.',
    'workshop guide':
        'دليل الورشة',
    'write your answer above (in place of None) and run this cell.':
        'اكتب إجابتك أعلاه (مكان None) ثم شغّل هذه الخلية.',
    'wrong: counting all {devices} devices as replicas would claim {naive} samples per update — tensor/pipeline devices split one model, they add no samples.':
        'خطأ: عدُّ الأجهزة الـ {devices} كلها نسخًا مكرَّرة يعطي {naive} عينة لكل تحديث — أجهزة توازي الموترات/خط الأنابيب تتقاسم نموذجًا واحدًا ولا تضيف عينات.',
    'x = {axis}: last x = {values}':
        'x = {axis}: آخر x = {values}',
    'x-axis':
        'المحور x',
    'you counted all 8 GPUs as replicas; two GPUs share one model copy (tensor parallel).':
        'عددتَ وحدات GPU الثماني كلها نسخًا مكرَّرة؛ لكن كل وحدتين تتشاركان نسخة واحدة من النموذج (توازي الموترات).',
    'your function raised {error}: {message}':
        'أطلقت دالتك الخطأ {error}: {message}',
    'zero per microbatch':
        'التصفير لكل دفعة مصغّرة',
    'zero_grad ends the group (before it, the gradients are still needed)':
        'zero_grad يختم المجموعة (قبله ما زالت التدرّجات لازمة)',
    '{answer} is not it; compute (100·1 + 300·2 + 600·3) ÷ 1000.':
        'ليست {answer}؛ احسب (100·1 + 300·2 + 600·3) ÷ 1000.',
    '{answer} is the mean of means; weight each mean by its items.':
        '{answer} هو متوسط المتوسطات؛ رجِّح كل متوسط بعدد أهداف التنبؤ فيه.',
    '{control}: only {value} applies on this machine':
        '{control}: لا ينطبق على هذا الجهاز إلا {value}',
    '{devices} devices (grey) = D {replicas} × tensor {tp} × pipeline {pp}; {batch} samples per update':
        '{devices} أجهزة (بالرمادي) = D {replicas} × موترات {tp} × خط أنابيب {pp}؛ {batch} عينة لكل تحديث',
    '{key}: you said {value}':
        '{key}: إجابتك {value}',
    '{kind}: {diff} items':
        '{kind}: {diff} هدفًا',
    "{name} is not it. Look MB-6 up in the section map above, or call gastudy.course.notebook_for('MB-6').":
        "ليس {name}. ابحث عن MB-6 في خريطة الأقسام أعلاه، أو استدعِ gastudy.course.notebook_for('MB-6').",
    '{name}: {got} instead of {right}':
        '{name}: {got} بدلًا من {right}',
    '{n} rows':
        '{n} صفوف',
    '{passes} forward/backward passes, {updates} optimizer updates.':
        '{passes} تمريرًا أماميًّا/خلفيًّا، و{updates} تحديثًا للمُحسِّن.',
    '{samples} samples → {updates} updates':
        '{samples} عينة ← {updates} تحديثًا',
    '{trained} of {total} samples trained ({policy})':
        'دُرِّبت {trained} من {total} عينة ({policy})',
    '{truth}: the short last group holds only the last microbatch.':
        '{truth}: المجموعة الأخيرة الناقصة لا تضم إلا الدفعة المصغّرة الأخيرة.',
    '{variable}=1 is set':
        'المتغيّر {variable}=1 مضبوط',
    'Σ n·mean ÷ Σ n = {right}.':
        'Σ n·المتوسط ÷ Σ n = {right}.',
    '→ optimizer.step() with G1+…+G{A} (= one batch of {batch}), then zero_grad().   max |Δ| = {abs_diff}, relative {rel_diff} (tolerance {tol} in {dtype}); parameters {state} during the group':
        '→ optimizer.step()\u200e مع G1+…+G{A} (= دفعة واحدة حجمها {batch})، ثم zero_grad()\u200e.   أقصى |Δ| = {abs_diff}، والنسبي {rel_diff} (السماحية {tol} في {dtype})؛ المعاملات {state} خلال المجموعة',
    '⌈125 microbatches ÷ 4⌉ = {right} updates, one scheduler step each.':
        '⌈125 دفعة مصغّرة ÷ 4⌉ = {right} تحديثًا، لكلٍّ منها خطوة واحدة للمُجدوِل.',
    '✓ right':
        '✓ صحيح',
    '✗ not yet':
        '✗ ليس بعد',
    '✗ {claim} — this no longer holds. {detail}':
        '✗ {claim} — لم يعد هذا صحيحًا. {detail}',
    "⤼ skipped: {what}. This cell runs the Hugging Face APIs for real and needs the optional 'hf' extra ({why}). The rest of the chapter does not depend on it.":
        "⤼ تم التخطّي: {what}. تشغّل هذه الخلية واجهات Hugging Face البرمجية فعلًا وتحتاج إلى الإضافة الاختيارية 'hf' ({why}). بقية الفصل لا تعتمد عليها.",
}
