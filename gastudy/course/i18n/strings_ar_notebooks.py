"""The course notebooks' check claims and printed sentences in ar: English text (the
``t("…")`` calls in the English notebooks' code cells) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    '\nloss per update (nats):':
        '\nالخسارة لكل تحديث (nats):',
    '  ← -100 = no target (the prompt)':
        '  ← -100 = لا هدف (الموجِّه)',
    '16 microbatches of 1 are slower than one batch of 16':
        '16 دفعة مصغّرة من عيّنة واحدة أبطأ من دفعة واحدة من 16',
    '16× the global batch → {updates} vs {updates2} updates for the same samples':
        'الدفعة العامة ×16 ← {updates} مقابل {updates2} تحديثًا للعيّنات نفسها',
    '32 microbatches of 1 are slower than one batch of 32':
        '32 دفعة مصغّرة من عيّنة واحدة أبطأ من دفعة واحدة من 32',
    '8× the samples → {value:.2f}× the bytes (linear in m)':
        'العيّنات ×8 ← البايتات ×{value:.2f} (خطّية في m)',
    'AdamW: they move {adamw:.2f}× as far — the factor mostly cancels, eps takes the rest':
        'AdamW: تتحرك الأوزان ×{adamw:.2f} من المسافة — يكاد المعامل يُلغى، ويتكفّل eps بالباقي',
    'AdamW: they move {adamw:.4f}× as far — its per-coordinate scaling cancels the constant factor':
        'AdamW: تتحرك الأوزان ×{adamw:.4f} من المسافة — تحجيمه لكل إحداثية يُلغي المعامل الثابت',
    'BatchNorm does not: its gap is {bn_mlp:.3g}, far above float32 rounding':
        'أما BatchNorm فلا: فرقه {bn_mlp:.3g}، أعلى بكثير من تقريب float32',
    'BatchNorm fails, and the verdict names it':
        'يفشل BatchNorm، ويسمّيه الحكم',
    'BatchNorm with the whole batch in one microbatch (A = 1) matches exactly':
        'يتطابق BatchNorm تمامًا حين تكون الدفعة كلها في دفعة مصغّرة واحدة (A = 1)',
    'D=2 passes against the single-process big batch of {samples} samples, per replica {per_replica}':
        'D=2 ينجح مقابل الدفعة الكبيرة لعملية واحدة من {samples} عيّنة، ولكل نسخة مكرَّرة {per_replica}',
    'G1+…+G{accumulation_steps} equals the gradient of one batch of {value} in {dtype} (relative gap {max_rel_diff:.1e} ≤ {tolerance:g})':
        'G1+…+G{accumulation_steps} يساوي تدرّج دفعة واحدة من {value} في {dtype} (الفرق النسبي {max_rel_diff:.1e} ≤ {tolerance:g})',
    'LayerNorm and no-norm MLPs match the big batch (relative gaps {ln_mlp:.1e}, {mlp:.1e})':
        'نماذج MLP مع LayerNorm وبلا تطبيع تطابق الدفعة الكبيرة (الفروق النسبية {ln_mlp:.1e}، {mlp:.1e})',
    'SGD with gradients ÷ 65,536: the weights move {sgd:.1e}× as far — it stops learning':
        'SGD مع قسمة التدرّجات على 65,536: تتحرك الأوزان ×{sgd:.1e} من المسافة — يتوقف التعلّم',
    'SGD: the weights move {sgd:.3f}× as far — the learning rate was in effect cut by 4':
        'SGD: تتحرك الأوزان ×{sgd:.3f} من المسافة — كأن معدّل التعلّم قُسم على 4',
    "Trainer(m={m}, A={A}) applies the gradient gastudy's engine computes (tokens)":
        'Trainer(m={m}, A={A}) يطبّق التدرّج الذي يحسبه محرّك gastudy (tokens)',
    "Transformers' offload runs where pinned memory exists; without an accelerator it fails, gastudy does not":
        'التفريغ (offload) في Transformers يعمل حيث توجد ذاكرة مثبّتة؛ وبلا مسرِّع يفشل، أما gastudy فلا',
    'Transformers, offload=True ({value}): {hf_offload}':
        'Transformers، offload=True ({value}): {hf_offload}',
    'a checkpointed layer keeps less than any layer without checkpointing':
        'الطبقة التي عليها نقاط تفتيش تحفظ أقل من أي طبقة بلا نقاط تفتيش',
    'a classifier has one target per sample':
        'للمصنِّف هدف واحد لكل عيّنة',
    'a constant divisor A under-weights the short group by size/A':
        'المقسوم عليه الثابت A يُنقص وزن المجموعة الناقصة بنسبة الحجم/A',
    "a forward-only check ({value:.1f} MiB) misses the group's peak ({value2:.1f} MiB)":
        'فحص التمرير الأمامي وحده ({value:.1f} MiB) يفوّت ذروة المجموعة ({value2:.1f} MiB)',
    'a mean-of-means update misses the big-batch gradient by {value:.1f}%; tokens by {tokens_gap:.0e}':
        'تحديث متوسط المتوسطات يخطئ تدرّج الدفعة الكبيرة بنسبة {value:.1f}%؛ و tokens بمقدار {tokens_gap:.0e}',
    "a per-microbatch mean ÷ gradient_accumulation_steps = gastudy's steps, not the big batch":
        'متوسط كل دفعة مصغّرة ÷ gradient_accumulation_steps = steps في gastudy، لا الدفعة الكبيرة',
    'a short last group is recorded with the samples it affected':
        'تُسجَّل المجموعة الأخيرة الناقصة مع العيّنات التي تأثرت بها',
    'accumulate() stepped the optimizer once for {A} microbatches':
        'خطا accumulate() بالمُحسِّن مرة واحدة لكل {A} دفعات مصغّرة',
    'activations shrink about 8×; weights, gradients and optimizer state do not change':
        'تصغر التفعيلات نحو 8 مرات؛ ولا تتغير الأوزان ولا التدرّجات ولا حالة المُحسِّن',
    'after the fix the detector is quiet':
        'بعد الإصلاح يسكت الكاشف',
    'after training, float32 weights drift further apart than float64 weights':
        'بعد التدريب تتباعد أوزان float32 أكثر من أوزان float64',
    "after {groups} updates the weights equal the engine's (relative gap {gap:.1e} ≤ 1e-5)":
        'بعد {groups} تحديثات تساوي الأوزانُ أوزانَ المحرّك (الفرق النسبي {gap:.1e} ≤ 1e-5)',
    'all {checks} checks hold':
        'الفحوص الـ {checks} كلها صحيحة',
    'all {found} glossary terms name real library objects':
        'مصطلحات المسرد الـ {found} كلها تسمّي كائنات حقيقية في المكتبة',
    'all {rows} pitfalls are caught and all {rows} fixes pass':
        'تُكتشف المزالق الـ {rows} كلها وتنجح الإصلاحات الـ {rows} كلها',
    'and none of them entered any update':
        'ولم يدخل أيٌّ منها في أي تحديث',
    'and on counts {counts} the two gradients differ by {value:.1f}%':
        'ومع الأعداد {counts} يختلف التدرّجان بنسبة {value:.1f}%',
    'and ran the same number of microbatches':
        'وشغّل العدد نفسه من الدفعات المصغّرة',
    'and so is the logged loss':
        'وكذلك الخسارة المسجَّلة',
    'and the same weights after three groups':
        'والأوزان نفسها بعد ثلاث مجموعات',
    'and the scale was halved ({scale_used:g} → {scale_after:g})':
        'وتم تنصيف معامل التحجيم ({scale_used:g} ← {scale_after:g})',
    'args.activation_checkpointing = {activation_checkpointing}, kwargs = {activation_checkpointing_kwargs}':
        'args.activation_checkpointing = {activation_checkpointing}، kwargs = {activation_checkpointing_kwargs}',
    "at 'step' {k}: run 1 had seen {value} samples, run 2 {value2}":
        'عند «الخطوة» {k}: رأى التشغيل 1 \u200f{value} عيّنة، والتشغيل 2 \u200f{value2}',
    'attempted = applied = scheduler steps (fp32: nothing skipped)':
        'المحاوَلة = المطبَّقة = خطوات المُجدوِل (fp32: لم يُتخطَّ شيء)',
    'autocast on the CPU really computes in float16 / bfloat16':
        'على المعالج المركزي يحسب autocast فعلًا بـ float16 / bfloat16',
    'bf16 autocast: {bf16:.1e}, hence its looser tolerance':
        'autocast بـ bf16: \u200f{bf16:.1e}، ولذلك تفاوته أوسع',
    'both runs saw the same {value} samples':
        'رأى التشغيلان العيّنات الـ {value} نفسها',
    'but run 1 made {value} updates and run 2 only {value2} (A = {A}×fewer)':
        'لكن التشغيل 1 أجرى {value} تحديثًا والتشغيل 2 أجرى {value2} فقط (أقل بـ A = {A} مرات)',
    'by hand and by the library: {total:,} bytes kept, the same to the byte (without: {total2:,})':
        'يدويًا وبالمكتبة: \u200f{total:,} بايت محفوظة، متطابقة حتى البايت (بدونها: {total2:,})',
    "by the last microbatch {value:.1f} microbatches' activations are alive (A = {A})":
        'عند آخر دفعة مصغّرة تكون تفعيلات {value:.1f} دفعة مصغّرة ما تزال حيّة (A = {A})',
    'bytes = {per_token:,.0f}·T + {per_token_squared:,.0f}·T² {constant:+,.0f}, exactly: linear and quadratic in T':
        'البايتات = {per_token:,.0f}·T + {per_token_squared:,.0f}·T² {constant:+,.0f}، بالضبط: خطّية وتربيعية في T',
    'bytes kept: n=1 < n=2 < n=3 < n=4 < off':
        'البايتات المحفوظة: n=1 < n=2 < n=3 < n=4 < بلا نقاط تفتيش',
    'checkpointing every layer keeps less than 15 % of the bytes, at every m and T':
        'نقاط التفتيش في كل طبقة تحفظ أقل من 15 % من البايتات، عند كل m و T',
    'checkpointing every layer: {ratio:.2f}× the time of no checkpointing — not faster beyond the 5 % noise margin':
        'نقاط التفتيش في كل طبقة: ×{ratio:.2f} من زمن التشغيل بدونها — ليست أسرع بما يتجاوز هامش الضجيج 5 %',
    'checkpointing keeps the gradient; accumulation keeps it within rounding, except with BatchNorm':
        'نقاط التفتيش تحفظ التدرّج؛ والتراكم يحفظه ضمن التقريب، إلا مع BatchNorm',
    'checkpointing leaves the gradient unchanged':
        'نقاط التفتيش لا تغيّر التدرّج',
    'clip → unscale: it gets max_norm / scale':
        'القصّ ← إلغاء التحجيم: النتيجة max_norm / معامل التحجيم',
    "compute_loss: summed loss ÷ num_items_in_batch = gastudy's tokens":
        'compute_loss: مجموع الخسارة ÷ num_items_in_batch = tokens في gastudy',
    'counted updates = the formula, for every global batch':
        'التحديثات المعدودة = الصيغة، لكل دفعة عامة',
    'declared False, the detector fires':
        'حين يُعلَن False يطلق الكاشف إنذاره',
    'declared True, the update equals the big batch':
        'حين يُعلَن True يساوي التحديثُ تحديثَ الدفعة الكبيرة',
    'decoded  :':
        'بعد فك الترميز:',
    'doubling A halves the updates per epoch':
        'مضاعفة A تُنصّف عدد التحديثات في كل حقبة',
    'drop: the {sample_ids} recorded samples {sample_ids2} were not trained':
        'drop: العيّنات المسجَّلة الـ {sample_ids} \u200f{sample_ids2} لم تُدرَّب',
    'each choice keeps less than none, and both together keep the least':
        'كل خيار يحفظ أقل من عدم فعل شيء، والاثنان معًا يحفظان الأقل',
    'each of the 2 replicas processes 16 of them':
        'كل نسخة من النسختين المكرَّرتين تعالج 16 منها',
    'each saves memory, and they combine':
        'كلٌّ منهما يوفّر الذاكرة، ويمكن الجمع بينهما',
    "each update used the engine's learning rate {lrs}":
        'استخدم كل تحديث معدّل تعلّم المحرّك {lrs}',
    'every candidate keeps m × A × D on target':
        'كل مرشَّح يُبقي m × A × D على الهدف',
    'every full update holds m·A = {effective_batch} samples':
        'كل تحديث كامل يضم m·A = {effective_batch} عيّنة',
    "every group's denominator was known before any forward":
        'كان مقام كل مجموعة معروفًا قبل أي تمرير أمامي',
    'every sample appears in exactly one update':
        'كل عيّنة تظهر في تحديث واحد بالضبط',
    'every section is mapped to a chapter of the course':
        'كل قسم مربوط بفصل من فصول الدورة',
    'every split processes {target} samples per update':
        'كل تقسيم يعالج {target} عيّنة في كل تحديث',
    'every_n_layers=2 checkpoints blocks 1 and 3, the ones chosen by hand':
        'every_n_layers=2 يضع نقاط تفتيش على الكتلتين 1 و 3، وهما نفسهما المختارتان يدويًا',
    'expected from the recomputation: about 1.2–1.35× on an idle machine; a ratio near 1 means the update is dominated by something else (Python overhead on a tiny model), or that the machine was busy':
        'المتوقَّع من إعادة الحساب: نحو 1.2–1.35× على جهاز غير مشغول؛ ونسبة قريبة من 1 تعني أن شيئًا آخر يهيمن على التحديث (عبء Python على نموذج صغير جدًا)، أو أن الجهاز كان مشغولًا',
    'fastest here: m={m}, A={A} ({ms_per_update:.1f} ms per update)':
        'الأسرع هنا: m={m}، A={A} \u200f({ms_per_update:.1f} ms لكل تحديث)',
    "float32: {fp32:.1e}, within the verifier's tolerance of 1e-4":
        'float32: \u200f{fp32:.1e}، ضمن تفاوت المتحقِّق 1e-4',
    'float64: the split changes the gradient by {fp64:.1e} (relative)':
        'float64: يغيّر التقسيم التدرّج بمقدار {fp64:.1e} (نسبيًا)',
    'for a CPU tensor, .cpu() returns the very same tensor: save_on_cpu(pin_memory=False) copies nothing':
        'لموتّر على المعالج المركزي تُعيد \u200e.cpu()\u200e الموتّر نفسه: save_on_cpu(pin_memory=False) لا ينسخ شيئًا',
    'forgetting zero_grad is invisible in the first update and wrong from the second on':
        'نسيان zero_grad لا يظهر في التحديث الأول ويصبح خطأً من الثاني فصاعدًا',
    'fp16 uses a gradient scaler, bf16 does not':
        'fp16 يستخدم مُحجِّم التدرّجات، و bf16 لا يستخدمه',
    'gastudy, offload=True: ran. {note}':
        'gastudy، offload=True: اشتغل. {note}',
    'gradients appear at the first backward':
        'تظهر التدرّجات عند أول تمرير خلفي',
    'in every held-out group (mean gap {value:.1f}%), while the loss differs by {mean_abs_bias:.2g} nats':
        'في كل مجموعة محجوزة (متوسط الفرق {value:.1f}%)، بينما تختلف الخسارة بمقدار {mean_abs_bias:.2g} nats',
    'in float32 the accumulated gradient matches within {tolerance:g} (measured {max_rel_diff:.1e})':
        'في float32 يتطابق التدرّج المتراكم ضمن {tolerance:g} (المقيس {max_rel_diff:.1e})',
    'ipywidgets and matplotlib are installed (the labs need both)':
        'ipywidgets و matplotlib مثبّتتان (المختبرات تحتاج إلى الاثنتين)',
    'keep adds one short update; drop skips its 6 samples, and both are recorded':
        'keep يضيف تحديثًا قصيرًا واحدًا؛ و drop يتخطى عيّناته الست، وكلاهما يُسجَّل',
    'keep: all {dataset_size} samples were trained, the short group included':
        'keep: دُرِّبت العيّنات الـ {dataset_size} كلها، بما فيها المجموعة الناقصة',
    'later groups run with the smaller scale':
        'المجموعات التالية تعمل بمعامل التحجيم الأصغر',
    'learning rate per update:':
        'معدّل التعلّم لكل تحديث:',
    'loss_is_scaled_for_ga = False: the gradient is A = {A}× too small':
        'loss_is_scaled_for_ga = False: التدرّج أصغر مما يجب بـ A = {A} مرات',
    "loss_is_scaled_for_ga = True: the Trainer's update equals gastudy's":
        'loss_is_scaled_for_ga = True: تحديث Trainer يساوي تحديث gastudy',
    'lr per update {lrs}, scale used {used}, applied {applied}':
        'معدّل التعلّم لكل تحديث {lrs}، معامل التحجيم المستخدم {used}، المطبَّقة {applied}',
    'm=1 still peaks at {value:.0%} of m={micro_batch}: the peak does not shrink in proportion':
        'ما زالت ذروة m=1 عند {value:.0%} من ذروة m={micro_batch}: الذروة لا تصغر بالتناسب',
    'm=2, A=8, D=2 → 32 distinct samples per update (counted)':
        'm=2، A=8، D=2 ← 32 عيّنة مختلفة لكل تحديث (معدودة)',
    'measured = formula + the shared mask, to the byte ({measured_bytes:,} = {formula_bytes:,} + {mask_bytes:,})':
        'المقيس = الصيغة + القناع المشترك، حتى البايت ({measured_bytes:,} = {formula_bytes:,} + {mask_bytes:,})',
    'microbatch {value}: {error}':
        'الدفعة المصغّرة {value}: {error}',
    'missing: {terms}':
        'مفقود: {terms}',
    'multiplying by every device would wrongly claim {naive_count}':
        'الضرب في كل جهاز سيدّعي خطأً {naive_count}',
    'n = 2 on 6 layers → layers 1, 3, 5':
        'n = 2 على 6 طبقات ← الطبقات 1 و 3 و 5',
    'n={every_n_layers}: the model checkpoints layers {checkpointed}':
        'n={every_n_layers}: يضع النموذج نقاط تفتيش على الطبقات {checkpointed}',
    'n={n}: both checkpoint layers {hf_layers} and keep {hf_kept:,} bytes for backward':
        'n={n}: كلاهما يضع نقاط تفتيش على الطبقات {hf_layers} ويحفظ {hf_kept:,} بايت للتمرير الخلفي',
    'no accumulated split beats the real batch by more than measurement noise (30 %)':
        'لا يتفوّق أي تقسيم متراكم على الدفعة الحقيقية بأكثر من ضجيج القياس (30 %)',
    'no m fits: the fixed part alone exceeds the budget':
        'لا يتسع أي m: الجزء الثابت وحده يتجاوز الميزانية',
    'no optimizer state before the first update':
        'لا حالة للمُحسِّن قبل التحديث الأول',
    'offload changes where the inputs wait, not the gradient: identical by hand, in the library and without offload':
        'التفريغ يغيّر مكان انتظار المدخلات لا التدرّج: متطابق يدويًا وفي المكتبة ومن دون تفريغ',
    'offload on {device}: {kept_plain:,} bytes kept without it, {kept_offload:,} with it':
        'التفريغ على {device}: \u200f{kept_plain:,} بايت محفوظة بدونه، و {kept_offload:,} معه',
    'on a full group steps and mean are the same computation (‖g_steps‖ ÷ ‖g_mean‖ = 1)':
        'في مجموعة كاملة يكون steps و mean الحسابَ نفسه (‖g_steps‖ ÷ ‖g_mean‖ = 1)',
    'on a short group of 3 with A = 4, steps gives 3/4 of mean: it still divides by A':
        'في مجموعة ناقصة من 3 مع A = 4 يعطي steps ثلاثة أرباع mean: ما زال يقسم على A',
    'on the CPU offload moves nothing: the same bytes':
        'على المعالج المركزي لا ينقل التفريغ شيئًا: البايتات نفسها',
    'on the CPU the library leaves offload off: nothing to move':
        'على المعالج المركزي تترك المكتبة التفريغ معطّلًا: لا شيء لينقله',
    'on the GPU offload leaves almost nothing on the device':
        'على GPU لا يكاد التفريغ يترك شيئًا على الجهاز',
    "on the GPU, by hand and in the library, the device no longer keeps the blocks' {inputs:,} input bytes":
        'على GPU، يدويًا وفي المكتبة، لم يعد الجهاز يحفظ بايتات مدخلات الكتل البالغة {inputs:,}',
    'one batch of 32 keeps about 4× the activations of a microbatch of 8 (measured {ratio:.2f}×)':
        'دفعة واحدة من 32 تحفظ نحو 4 أضعاف تفعيلات دفعة مصغّرة من 8 (المقيس ×{ratio:.2f})',
    'one probe per device: the CPU and every GPU present':
        'مسبار واحد لكل جهاز: المعالج المركزي وكل GPU موجود',
    'one scale for the whole group: {value:g} for all {scales} microbatches':
        'معامل تحجيم واحد للمجموعة كلها: {value:g} للدفعات المصغّرة الـ {scales} كلها',
    'one skipped update: attempted ≠ applied, the scale halves, the scheduler follows the applied updates':
        'تحديث واحد متخطّى: المحاوَلة ≠ المطبَّقة، ويتنصّف معامل التحجيم، ويتبع المُجدوِل التحديثات المطبَّقة',
    'optimizer state appears only at the first update (and never with plain SGD)':
        'تظهر حالة المُحسِّن عند التحديث الأول فقط (ولا تظهر أبدًا مع SGD البسيط)',
    'per microbatch: {wrong_steps} scheduler steps for {applied} updates':
        'لكل دفعة مصغّرة: {wrong_steps} خطوة للمُجدوِل مقابل {applied} تحديثًا',
    "plain mean of means = gastudy's mean normalization (within 1e-6)":
        'متوسط المتوسطات يدويًا = تطبيع mean في gastudy (ضمن 1e-6)',
    "plain Σ loss_sum ÷ group items = gastudy's tokens normalization (within 1e-6)":
        'Σ loss_sum يدويًا ÷ أهداف التنبؤ في المجموعة = تطبيع tokens في gastudy (ضمن 1e-6)',
    'questions:':
        'الأسئلة:',
    'save_on_cpu took over exactly the {inputs:,} bytes the checkpointed blocks keep — still in the same host memory':
        'تولّى save_on_cpu بالضبط البايتات الـ {inputs:,} التي تحفظها الكتل ذات نقاط التفتيش — وما زالت في ذاكرة المضيف نفسها',
    "scale used by each microbatch's backward:":
        'معامل التحجيم المستخدم في التمرير الخلفي لكل دفعة مصغّرة:',
    'shift_labels of a packed batch count the same {right} items as the padded batch':
        'shift_labels في دفعة محزومة يعدّ أهداف التنبؤ الـ {right} نفسها التي تعدّها الدفعة المحشوّة',
    'shifting masked-LM labels would drop targets ({wrong} instead of {right})':
        'إزاحة تسميات نموذج اللغة المقنَّع ستُسقط أهدافًا ({wrong} بدلًا من {right})',
    'size of the error: the denominator is {value:.1f}% too large, so the loss reads {loss_wrong:.4f} instead of {loss_right:.4f}':
        'حجم الخطأ: المقام أكبر مما يجب بنسبة {value:.1f}%، فتظهر الخسارة {loss_wrong:.4f} بدلًا من {loss_right:.4f}',
    'so 8× the sequence → {ratio:.2f}× the bytes: more than 8× because of the T² part':
        'إذن التسلسل ×8 ← البايتات ×{ratio:.2f}: أكثر من 8 أضعاف بسبب جزء T²',
    'split-independent models match the big batch; BatchNorm does not':
        'النماذج التي لا تتأثر بالتقسيم تطابق الدفعة الكبيرة؛ أما BatchNorm فلا',
    "stepping per microbatch puts update k at the schedule's step (k+1)·A: {accumulation_steps}× too fast":
        'الخطو لكل دفعة مصغّرة يضع التحديث k عند الخطوة \u200e(k+1)·A\u200e من الجدول: أسرع بـ {accumulation_steps} مرات',
    'steps normalization does not on variable-length data (gap {steps:.3g}, items {items})':
        'تطبيع steps لا يطابق على بيانات متغيرة الطول (الفرق {steps:.3g}، أهداف التنبؤ {items})',
    "summed loss ÷ the group's items × A = gastudy's tokens (the big-batch gradient)":
        'مجموع الخسارة ÷ أهداف المجموعة × A = tokens في gastudy (تدرّج الدفعة الكبيرة)',
    'supervised items per microbatch:':
        'أهداف التنبؤ لكل دفعة مصغّرة:',
    'supervised items:':
        'أهداف التنبؤ:',
    'tensor-parallel GPUs are not replicas':
        'وحدات GPU في توازي الموتّرات ليست نسخًا مكرَّرة',
    "the Trainer's checkpointed update = gastudy's un-checkpointed one: {cmp}":
        'تحديث Trainer مع نقاط التفتيش = تحديث gastudy بدونها: {cmp}',
    'the T² part is the attention mask: m × T × T float32 values (4 bytes) in each layer':
        'جزء T² هو قناع الانتباه: m × T × T قيمة float32 (4 بايت) في كل طبقة',
    "the chosen plan's measured peak fits the budget: {value}":
        'الذروة المقيسة للخطة المختارة تتسع في الميزانية: {value}',
    "the correct loop holds no microbatch's activations at the next microbatch's start":
        'الحلقة الصحيحة لا تحفظ تفعيلات أي دفعة مصغّرة عند بدء الدفعة المصغّرة التالية',
    'the correct loop matches the big batch at every update':
        'الحلقة الصحيحة تطابق الدفعة الكبيرة في كل تحديث',
    "the default answer's numbers support its text":
        'أرقام الإجابة الافتراضية تدعم نصّها',
    'the detector fires on both zero_grad mistakes':
        'يطلق الكاشف إنذاره على خطأي zero_grad كليهما',
    'the detector names the symptom: {value}…':
        'يسمّي الكاشف العَرَض: {value}…',
    'the detector recovers the unshifted denominator: one extra item per row':
        'يستعيد الكاشف المقام غير المُزاح: هدف زائد واحد في كل صف',
    'the detector stays quiet on the correct loop':
        'يسكت الكاشف على الحلقة الصحيحة',
    'the double-division detector flags the shrunken gradient':
        'كاشف القسمة المزدوجة ينبّه إلى التدرّج المنكمش',
    'the engine stepped the scheduler once per update ({updates})':
        'خطا المحرّك بالمُجدوِل مرة واحدة لكل تحديث ({updates})',
    "the engine's update gave the optimizer exactly the replayed gradient":
        'أعطى تحديث المحرّك المُحسِّنَ التدرّجَ المُعاد تشغيله بالضبط',
    "the engine's updates used exactly those denominators {denominators}":
        'استخدمت تحديثات المحرّك هذه المقامات بالضبط {denominators}',
    'the five detectors cover the five symptoms':
        'الكواشف الخمسة تغطي الأعراض الخمسة',
    "the fixed part is at least 80 % of every candidate's peak: shrinking m barely helps":
        'الجزء الثابت 80 % على الأقل من ذروة كل مرشَّح: تصغير m لا يكاد يفيد',
    'the gradient is exactly A = 4× too small':
        'التدرّج أصغر مما يجب بـ A = 4 مرات بالضبط',
    "the gradients are identical to the library's, and equal to the un-checkpointed ones within rounding":
        'التدرّجات متطابقة مع تدرّجات المكتبة، ومساوية لتلك التي بلا نقاط تفتيش ضمن التقريب',
    'the last group is short: {microbatches} of A = {accumulation_steps} microbatches':
        'المجموعة الأخيرة ناقصة: {microbatches} من A = {accumulation_steps} دفعات مصغّرة',
    'the map lists all {n} sections':
        'الخريطة تذكر الأقسام الـ {n} كلها',
    'the mean of means':
        'متوسط المتوسطات',
    'the mean of means differs from the token-weighted loss (mean |bias| {mean_abs_bias:.2g} nats)':
        'متوسط المتوسطات يختلف عن الخسارة الموزونة بالرموز (متوسط |الانحياز| {mean_abs_bias:.2g} nats)',
    'the memory-growth detector fires on kept graph-attached losses':
        'كاشف نمو الذاكرة يطلق إنذاره عند الاحتفاظ بخسائر متصلة بالمخطط',
    'the microbatch shares of one update sum to 1':
        'حصص الدفعات المصغّرة في التحديث الواحد مجموعها 1',
    "the model's mean loss through accelerator.backward = gastudy's steps normalization":
        'متوسط خسارة النموذج عبر accelerator.backward = تطبيع steps في gastudy',
    'the observed peak is recorded':
        'تُسجَّل الذروة المرصودة',
    'the older spelling gradient_checkpointing_enable(...) picks the same layers, with a deprecation warning':
        'التهجئة الأقدم gradient_checkpointing_enable(...) تختار الطبقات نفسها، مع تحذير من الإهمال',
    'the parameters did not move during the group':
        'لم تتحرك المعاملات أثناء المجموعة',
    'the partition-dependence detector fires on the mean-of-means loop':
        'كاشف الاعتماد على التقسيم يطلق إنذاره على حلقة متوسط المتوسطات',
    "the plain loop hands the optimizer the gradient gastudy's Accumulator computes on the same microbatches (relative gap {gap:.1e} ≤ 1e-6, float32)":
        'الحلقة اليدوية تعطي المُحسِّنَ التدرّجَ الذي يحسبه Accumulator في gastudy على الدفعات المصغّرة نفسها (الفرق النسبي {gap:.1e} ≤ 1e-6، float32)',
    "the plain scaler loop hands the optimizer gastudy's fp16 gradient (relative gap {gap:.1e} ≤ 1e-6)":
        'حلقة المُحجِّم اليدوية تعطي المُحسِّنَ تدرّج fp16 في gastudy (الفرق النسبي {gap:.1e} ≤ 1e-6)',
    'the same learning rates {lrs} (no decay after the skip) and scales {used}':
        'معدّلات التعلّم نفسها {lrs} (بلا تناقص بعد التخطي) ومعاملات التحجيم {used}',
    'the saved JSON reads back to the same record ({name})':
        'ملف JSON المحفوظ يُقرأ مجددًا بوصفه السجلّ نفسه ({name})',
    'the savings multiply':
        'تتضاعف الوفورات',
    'the schedule-drift detector fires on the per-microbatch loop':
        'كاشف انحراف الجدول يطلق إنذاره على الحلقة التي تخطو لكل دفعة مصغّرة',
    'the scheduler stepped only for applied updates':
        'خطا المُجدوِل فقط عند التحديثات المطبَّقة',
    'the weighted mean equals the plain mean over all 2,048 tokens':
        'المتوسط الموزون يساوي المتوسط البسيط على الرموز الـ 2,048 كلها',
    'then AdamW keeps 2 tensors per weight':
        'ثم يحفظ AdamW موتّرين لكل وزن',
    'token-weighted mean of the 512/1536 example':
        'المتوسط الموزون بالرموز لمثال 512/1536',
    'tokens normalization equals the big batch (gap {tokens:.1e})':
        'تطبيع tokens يساوي الدفعة الكبيرة (الفرق {tokens:.1e})',
    'torch can use {torch_threads} thread(s)':
        'يستطيع torch استخدام {torch_threads} خيط/خيوط',
    'unscale → clip: the optimizer gets min(true norm, max_norm)':
        'إلغاء التحجيم ← القصّ: يحصل المُحسِّن على min(المعيار الحقيقي، max_norm)',
    'unscale_ per microbatch is refused at the second microbatch':
        'يُرفض unscale_ لكل دفعة مصغّرة عند الدفعة المصغّرة الثانية',
    'unshifted counting over-counts by exactly one item per row ({wrong} vs {right})':
        'العدّ بلا إزاحة يزيد هدفًا واحدًا بالضبط في كل صف ({wrong} مقابل {right})',
    'update 2 was skipped, by hand and by the engine':
        'تُخطّي التحديث 2، يدويًا وفي المحرّك',
    'update {k} was skipped: no parameter changed':
        'تُخطّي التحديث {k}: لم يتغير أي معامل',
    'weights differ after training in both precisions — by far more in float32':
        'تختلف الأوزان بعد التدريب في الدقتين — وأكثر بكثير في float32',
    'with equal counts per microbatch all three normalizations agree':
        'مع أعداد متساوية لكل دفعة مصغّرة تتفق التطبيعات الثلاثة',
    'with equal counts the two agree':
        'مع أعداد متساوية يتفق الاثنان',
    'with ignored prompts the same mistake is invisible':
        'حين تُهمَل الموجِّهات يصبح الخطأ نفسه غير مرئي',
    "without AdamW's moments the fixed part drops to {value:.0%} and a plan fits":
        'من دون عزوم AdamW ينخفض الجزء الثابت إلى {value:.0%} وتتسع خطة',
    'without sharding every id repeats on both replicas':
        'من دون توزيع يتكرر كل معرّف على النسختين المكرَّرتين',
    'yet the memory one microbatch keeps differs by {memory_spread:.0f}× between splits':
        'ومع ذلك تختلف الذاكرة التي تحفظها دفعة مصغّرة واحدة بمقدار {memory_spread:.0f} مرة بين التقسيمات',
    'your configuration passes: relative gradient gap {max_rel_diff:.1e} ≤ {tolerance:g}':
        'إعداداتك تنجح: الفرق النسبي في التدرّج {max_rel_diff:.1e} ≤ {tolerance:g}',
    'your model passes on your 16 samples (gap {max_rel_diff:.1e})':
        'نموذجك ينجح على عيّناتك الـ 16 (الفرق {max_rel_diff:.1e})',
    "zeroing per microbatch leaves a gradient {value:.1f}× smaller than the big batch's (A = {A}: between 1/A = {value2:.2f} and 1/√A = {value3:.2f}; measured {ratio:.2f})":
        'التصفير لكل دفعة مصغّرة يترك تدرّجًا أصغر بـ {value:.1f} مرة من تدرّج الدفعة الكبيرة (A = {A}: بين 1/A = {value2:.2f} و 1/√A = {value3:.2f}؛ المقيس {ratio:.2f})',
    '{dataset_size} samples make ⌈{dataset_size}/{effective_batch}⌉ = {updates} updates':
        '{dataset_size} عيّنة تعطي ⌈{dataset_size}/{effective_batch}⌉ = {updates} تحديثًا',
    '{devices} devices, still {distinct} samples per update':
        '{devices} أجهزة، وما زالت {distinct} عيّنة لكل تحديث',
    '{updates_attempted} updates attempted, {updates_applied} applied':
        '{updates_attempted} تحديثًا محاوَلًا، و {updates_applied} مطبَّقًا',
    "÷A misses by {steps_gap:.1%}; ÷ the group's tokens is exact to rounding":
        'القسمة على A تخطئ بنسبة {steps_gap:.1%}؛ والقسمة على رموز المجموعة دقيقة حتى التقريب',
    '÷A on variable lengths fails, and the verdict says: use tokens':
        'القسمة على A مع أطوال متغيرة تفشل، والحكم يقول: استخدم tokens',
    '…and costs time: two copies per checkpointed layer':
        '…ويكلّف وقتًا: نسختان لكل طبقة ذات نقطة تفتيش',
    '…and dividing by A instead fails on the same batches: {value}…':
        '…والقسمة على A بدلًا من ذلك تفشل على الدفعات نفسها: {value}…',
    '…but the microbatch keeps far less for backward':
        '…لكن الدفعة المصغّرة تحفظ أقل بكثير للتمرير الخلفي',
    'all-reduces in one update of A = {A}: no_sync around forward + backward → {calls}, around the backward only → {calls2}':
        'عدد all-reduce في تحديث واحد مع A = {A}: \u200fno_sync حول التمرير الأمامي + الخلفي ← {calls}، وحول التمرير الخلفي وحده ← {calls2}',
    'backward-only no_sync communicates after every microbatch, exactly like no no_sync at all':
        'no_sync حول التمرير الخلفي وحده يتواصل بعد كل دفعة مصغّرة، تمامًا كأنه لا no_sync على الإطلاق',
    'deferred: each replica holds the whole gradient':
        'deferred: كل نسخة مكرَّرة تحفظ التدرّج كاملًا',
    'deferred: {reductions_per_update:g} reduce-scatters per update, one per FSDP module ({modules})':
        'deferred: \u200f{reductions_per_update:g} عملية reduce-scatter لكل تحديث، واحدة لكل وحدة FSDP \u200f({modules})',
    'every: each replica holds 1/D of the gradient':
        'every: كل نسخة مكرَّرة تحفظ 1/D من التدرّج',
    'every: {reductions_per_update:g} reduce-scatters per update = A × {modules} modules (A = {A})':
        'every: \u200f{reductions_per_update:g} عملية reduce-scatter لكل تحديث = A × {modules} وحدة (A = {A})',
    'forward and backward inside no_sync: one all-reduce (per bucket) per update, as in the library':
        'التمريران الأمامي والخلفي داخل no_sync: عملية all-reduce واحدة (لكل حاوية) لكل تحديث، كما في المكتبة',
    'global denominator = the single-process big batch (relative gap {max_rel_diff:.1e})':
        'المقام العام = الدفعة الكبيرة لعملية واحدة (الفرق النسبي {max_rel_diff:.1e})',
    'sharded: all ids distinct, the update runs':
        'مع التوزيع: كل المعرّفات مختلفة، والتحديث يعمل',
    'sync {sync}: the sharded update equals the single-process big batch (relative gap {max_rel_diff:.1e}, fp32 tolerance {tolerance:g}; the naive per-replica mean: {naive_rel_diff:.1e})':
        'sync {sync}: التحديث المجزّأ يساوي الدفعة الكبيرة لعملية واحدة (الفرق النسبي {max_rel_diff:.1e}، تفاوت fp32 \u200f{tolerance:g}؛ المتوسط الساذج لكل نسخة مكرَّرة: {naive_rel_diff:.1e})',
    'the global denominator is the sum over replicas':
        'المقام العام هو المجموع على النسخ المكرَّرة',
    'the mistake costs communication, not correctness (gap {wrong:.1e}: rounding)':
        'الخطأ يكلّف اتصالًا لا صحةً (الفرق {wrong:.1e}: تقريب)',
    'the naive local mean is off by {max_rel_diff:.1%} when replicas hold {items_per_replica} tokens':
        'المتوسط المحلي الساذج يبتعد بنسبة {max_rel_diff:.1%} حين تحمل النسخ المكرَّرة {items_per_replica} رمزًا',
    "the plain loop's gradient = the library's (relative gap {right:.1e})":
        'تدرّج الحلقة اليدوية = تدرّج المكتبة (الفرق النسبي {right:.1e})',
    'unsharded: every id appears on both replicas, and the update is refused':
        'من دون توزيع: كل معرّف يظهر على النسختين، ويُرفض التحديث',
    'with no_sync each update sends the gradient once':
        'مع no_sync يرسل كل تحديث التدرّج مرة واحدة',
    'without no_sync: {calls_per_update:g} all-reduces per update; with it: {calls_per_update2:g} (A = {A})':
        'من دون no_sync: \u200f{calls_per_update:g} عملية all-reduce لكل تحديث؛ ومعه: {calls_per_update2:g} (A = {A})',
}
