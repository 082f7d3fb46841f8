"""Arabic texts of the labs and exercises of chapters 10–12 (verifier, run record, clinic,
questions). Part of the Arabic table (see :func:`gastudy.course.i18n.table_modules`).
Numbers stay Latin digits; identifiers from the code stay as the code spells them."""

STRINGS: dict[str, str] = {
    # ---- chapter 01 (the logging-axes lab's progress note)
    "training m={m}, A={A}": "جارٍ التدريب: m={m}، A={A}",
    # ---- chapter 10: the verifier and the run record
    "MB-10 · Verify one update on a small controlled set before any campaign":
        "MB-10 · تحقّق من تحديث واحد على مجموعة صغيرة مضبوطة قبل أي سلسلة تجارب",
    "MB-10 · The run record: everything needed to interpret or repeat the run":
        "MB-10 · سجلّ التشغيل: كل ما يلزم لتفسير التشغيل أو تكراره",
    "gradient equals the big batch": "التدرّج يساوي تدرّج الدفعة الكبيرة",
    "same sample ids": "معرّفات العينات نفسها",
    "finite gradients": "تدرّجات منتهية",
    "gradients zero at the group boundary": "التدرّجات صفرية عند حدّ المجموعة",
    "exactly one optimizer step": "خطوة واحدة بالضبط للمُحسِّن",
    "exactly one scheduler step": "خطوة واحدة بالضبط للمُجدوِل",
    "gradient equals the single-process big batch": "التدرّج يساوي تدرّج الدفعة الكبيرة في عملية واحدة",
    "same gradient on every replica": "التدرّج نفسه على كل نسخة مكرَّرة",
    "sample ids distinct across replicas": "معرّفات العينات مختلفة بين النسخ المكرَّرة",
    "global denominator = the big batch's supervised items": "المقام المشترك = أهداف التنبؤ في الدفعة الكبيرة",
    "check": "الفحص",
    "ok": "النتيجة",
    "PASSED": "نجح",
    "FAILED:": "فشل:",
    "preparation": "التحضير",
    "trial": "تجربة أولية",
    "accepted": "مقبول",
    "stage": "المرحلة",
    "observed peak {peak}; saved to {json} and {markdown}":
        "ذروة الذاكرة المرصودة {peak}؛ حُفظ في {json} و{markdown}",
    # ---- exercises 10
    "answer with a dict of verify arguments, got {answer}": "أجب بقاموس (dict) من وسائط verify؛ وصلنا: {answer}",
    "the exercise asks for precision='bf16', accumulation_steps=8 on model 'tiny-gpt'":
        "يطلب التمرين precision='bf16' وaccumulation_steps=8 على النموذج 'tiny-gpt'",
    "verify(**answer) raised {error}: {message}": "أطلق verify(**answer) الخطأ {error}: {message}",
    "passed: relative gap {gap} within bf16's tolerance {tol}.":
        "نجح: الفرق النسبي {gap} ضمن سماحية bf16 البالغة {tol}.",
    "it fails: {reasons}": "يفشل: {reasons}",
    "answer with a whole number of samples, got {answer}": "أجب بعدد صحيح من العينات؛ وصلنا: {answer}",
    "{expected} samples: 150 samples make 38 microbatches (the last holds 2), so after 9 full groups the last "
    "group has {microbatches} microbatches.":
        "{expected} عينات: تكوّن 150 عينة 38 دفعة مصغّرة (في الأخيرة عينتان)، لذا بعد 9 مجموعات كاملة تضم "
        "المجموعة الأخيرة {microbatches} دفعات مصغّرة.",
    "that is the number of microbatches; the question asks for samples.":
        "هذا عدد الدفعات المصغّرة؛ والسؤال عن عدد العينات.",
    "{answer} is not it; look at record.result.record.last_group['groups'][0]['sample_ids']":
        "ليس {answer}؛ انظر إلى record.result.record.last_group['groups'][0]['sample_ids']",
    # ---- chapter 11: the clinic
    "MB-11 · The clinic: pick a pitfall, watch its detector fire, then watch the fix":
        "MB-11 · العيادة: اختر خطأً شائعًا، وشاهد كاشفه ينبّه، ثم شاهد الإصلاح",
    "MB-11 · Every pitfall, its detector and its fix": "MB-11 · كل خطأ شائع وكاشفه وإصلاحه",
    "the loss is abnormally small": "الخسارة صغيرة على نحو غير طبيعي",
    "a division applied twice (loss already ÷ items, then ÷ A again), an inflated denominator, or fp16 "
    "gradients clipped while still scaled":
        "قسمة طُبّقت مرتين (الخسارة مقسومة أصلًا على عدد الأهداف ثم على A مرة أخرى)، أو مقام متضخّم، أو تدرّجات "
        "fp16 قُصّت وهي ما تزال مُحجَّمة",
    "the result changes when the same samples are split differently":
        "تتغيّر النتيجة عندما تُقسَّم العينات نفسها بطريقة أخرى",
    "ignored tokens counted, or a mean of microbatch means instead of a token-weighted mean":
        "عُدّت رموز مُهمَلة، أو أُخذ متوسط متوسطات الدفعات المصغّرة بدل المتوسط الموزون بالرموز",
    "accumulation has no effect (or leaks across updates)": "التراكم بلا أثر (أو يتسرّب بين التحديثات)",
    "where zero_grad and optimizer.step are called": "أين يُستدعى zero_grad وoptimizer.step",
    "memory grows with every microbatch of a group": "تزداد الذاكرة مع كل دفعة مصغّرة في المجموعة",
    "references kept between microbatches (losses still attached to their graphs)":
        "مراجع محفوظة بين الدفعات المصغّرة (خسائر ما تزال مرتبطة بمخططاتها الحسابية)",
    "the learning-rate schedule is shifted": "جدول معدّل التعلّم منزاح",
    "whether the scheduler counts backward passes instead of applied updates":
        "هل يعدّ المُجدوِل التمريرات الخلفية بدل التحديثات المُطبَّقة",
    "double division": "القسمة المزدوجة",
    "partition dependence": "الاعتماد على التقسيم",
    "ineffective accumulation": "التراكم غير الفعّال",
    "memory growth": "تزايد الذاكرة",
    "schedule drift": "انحراف الجدول",
    "zero_grad inside the microbatch loop: only the last microbatch's gradient reaches the step (MB-1)":
        "zero_grad داخل حلقة الدفعات المصغّرة: لا يصل إلى الخطوة إلا تدرّج الدفعة المصغّرة الأخيرة (MB-1)",
    "no zero_grad between groups: the previous group's gradient leaks into the next update (MB-1)":
        "لا zero_grad بين المجموعات: يتسرّب تدرّج المجموعة السابقة إلى التحديث التالي (MB-1)",
    "a loss already divided by num_items declared as not scaled: divided again by A (GA-6)":
        "خسارة مقسومة أصلًا على num_items صُرِّح بأنها غير مُطبَّعة: فتُقسم مرة أخرى على A ‏(GA-6)",
    "mean of microbatch means on variable-length data: the result depends on how samples are split (MB-3)":
        "متوسط متوسطات الدفعات المصغّرة على بيانات متغيّرة الطول: تعتمد النتيجة على طريقة تقسيم العينات (MB-3)",
    "microbatch means ÷ the configured A: a short last group is under-weighted by size/A (MB-4)":
        "متوسطات الدفعات المصغّرة ÷ قيمة A المضبوطة: تنقص أهمية المجموعة الأخيرة الناقصة بنسبة الحجم/A ‏(MB-4)",
    "causal items counted without the shift: the denominator is too large by one per row (GA-5)":
        "عُدّت الأهداف السببية دون الإزاحة: المقام أكبر بواحد لكل صف (GA-5)",
    "scheduler stepped per microbatch: the schedule runs A× too fast (MB-6)":
        "يتقدّم المُجدوِل مع كل دفعة مصغّرة: يجري الجدول أسرع بـ A مرة (MB-6)",
    "graph-attached losses summed across microbatches: activations of every microbatch stay alive (MB-4)":
        "خسائر مرتبطة بالمخطط الحسابي تُجمع عبر الدفعات المصغّرة: تبقى تفعيلات كل دفعة مصغّرة في الذاكرة (MB-4)",
    "fp16: clipping the scaled gradients before unscale_: the applied gradient shrinks by the loss scale (MB-5)":
        "fp16: قصّ التدرّجات المُحجَّمة قبل unscale_: يصغر التدرّج المُطبَّق بمقدار معامل تحجيم الخسارة (MB-5)",
    "pitfall": "الخطأ الشائع",
    "fixed": "بعد الإصلاح",
    "logged (pitfall)": "المُسجَّلة (الخطأ)",
    "logged (fixed)": "المُسجَّلة (بعد الإصلاح)",
    "loss of the group (nats)": "خسارة المجموعة (nat)",
    "gradient {k}× smaller than the big batch's": "التدرّج أصغر من تدرّج الدفعة الكبيرة بـ {k} مرة",
    "the same samples split as m × A": "العينات نفسها مقسّمة بصيغة m × A",
    "gradient change (relative)": "تغيّر التدرّج (نسبي)",
    "update {g}": "التحديث {g}",
    "|Δ| from the group's true gradient (relative)": "|Δ| عن التدرّج الحقيقي للمجموعة (نسبي)",
    "microbatch index in the group": "ترتيب الدفعة المصغّرة في المجموعة",
    "KiB still alive at its start": "KiB ما تزال حيّة عند بدايتها",
    "schedule per update": "الجدول لكل تحديث",
    "learning rate": "معدّل التعلّم",
    "symptom:": "العَرَض:",
    "look for:": "ابحث عن:",
    "the pitfall": "الخطأ الشائع",
    "detector on the pitfall:": "الكاشف على الخطأ:",
    "detector on the fix:": "الكاشف على الإصلاح:",
    "A = {A}: {ok} of {n} detectors fire on their pitfall and stay quiet on the fix; the last column is what "
    "each measured, and that moves with A":
        "A = {A}: ‏{ok} من {n} كواشف تنبّه على خطئها وتصمت على الإصلاح؛ العمود الأخير هو ما قاسه كل كاشف، وهو "
        "يتغيّر مع A",
    "symptom": "العَرَض",
    "detector": "الكاشف",
    "fires on the pitfall": "ينبّه على الخطأ",
    "quiet on the fix": "يصمت على الإصلاح",
    "measured on the pitfall": "المقيس على الخطأ",
    # ---- exercises 11
    "answer with a function f(model, optimizer, scheduler, group) -> float, got {answer}":
        "أجب بدالة f(model, optimizer, scheduler, group) -> float؛ وصلنا: {answer}",
    "your update function raised {error}: {message}": "أطلقت دالة التحديث الخاصة بك الخطأ {error}: {message}",
    "all five detectors are quiet: {symptoms}.": "الكواشف الخمسة كلها صامتة: {symptoms}.",
    "answer with a number (the factor k), got {answer}": "أجب بعدد (المعامل k)؛ وصلنا: {answer}",
    "k = {k} = {implied} ÷ {denominator} items: one extra item for each of the {rows} rows whose first label "
    "is supervised.":
        "k = {k} = {implied} ÷ {denominator} هدفًا: هدف زائد لكل صف من الصفوف الـ {rows} التي تسميتها الأولى "
        "هدف تنبؤ.",
    "that is 1/k: the gradient is k times *smaller*, so k > 1.":
        "هذا 1/k: التدرّج *أصغر* بـ k مرة، إذن k > 1.",
    "{answer} is not the measured factor; read case.result.before.evidence['k']":
        "{answer} ليس المعامل المقيس؛ اقرأ case.result.before.evidence['k']",
    # ---- chapter 12: the questions
    "MB-12 · Ask a question; the answer is measured now": "MB-12 · اطرح سؤالًا؛ يُقاس الجواب الآن",
    "question": "السؤال",
    "Q: {question}": "س: {question}",
    "Measured just now · sections {sections} · taught in {chapter}":
        "قيس الآن · الأقسام {sections} · يُدرَّس في {chapter}",
    "Is accumulating A microbatches the same as one batch A times larger?":
        "هل تراكم A دفعات مصغّرة هو نفسه دفعة واحدة أكبر بـ A مرة؟",
    "Can I simply divide each microbatch's loss by A?": "هل يكفي أن أقسم خسارة كل دفعة مصغّرة على A؟",
    "Will accumulation make my training faster?": "هل سيجعل التراكم تدريبي أسرع؟",
    "How much memory does a smaller microbatch really save?": "كم من الذاكرة توفّر دفعة مصغّرة أصغر فعلًا؟",
    "If I change A, must I change the learning rate?": "إذا غيّرت A، هل يجب أن أغيّر معدّل التعلّم؟",
    "Should the scheduler step once per microbatch?": "هل يجب أن يتقدّم المُجدوِل مرة لكل دفعة مصغّرة؟",
    "I train on 8 GPUs: is my effective batch m × A × 8?": "أدرّب على 8 وحدات GPU: هل دفعتي الفعّالة m × A × 8؟",
    "What happens to the samples of the last, short group?": "ماذا يحدث لعينات المجموعة الأخيرة الناقصة؟",
    "Does activation checkpointing change my gradients?": "هل تغيّر نقاط تفتيش التفعيلات (checkpointing) تدرّجاتي؟",
    "Checkpointing or a smaller microbatch: which saves more memory?":
        "نقاط التفتيش أم دفعة مصغّرة أصغر: أيّهما يوفّر ذاكرة أكثر؟",
    "Why does memory jump at the first update?": "لماذا تقفز الذاكرة عند التحديث الأول؟",
    "With fp16, can an update be skipped — and does the schedule notice?":
        "مع fp16، هل يمكن أن يُتخطّى تحديث؟ وهل يلاحظ الجدول ذلك؟",
    "How do I know each GPU sees different samples?": "كيف أعرف أن كل GPU ترى عينات مختلفة؟",
    "Why are my weights not bit-identical after switching to accumulation?":
        "لماذا لا تتطابق أوزاني بتًّا ببتّ بعد الانتقال إلى التراكم؟",
    "Should I offload activations to the CPU?": "هل أفرّغ التفعيلات إلى المعالج المركزي (offload)؟",
    "Checkpointing or accumulation: which one changes my training?": "نقاط التفتيش أم التراكم: أيّهما يغيّر تدريبي؟",
    "Does the Hugging Face Trainer normalize accumulation correctly?": "هل يطبّع Trainer من Hugging Face التراكم تطبيعًا صحيحًا؟",
    "Only when every layer treats samples independently. One update of A=4 microbatches of m=4 against one "
    "batch of 16: tiny-gpt differs by {gpt} and the LayerNorm MLP by {ln} (relative, float32 rounding), the "
    "BatchNorm MLP by {bn} — BatchNorm normalizes each microbatch with its own statistics.":
        "فقط حين تعالج كل طبقة العينات مستقلةً بعضها عن بعض. تحديث واحد من A=4 دفعات مصغّرة حجم كل منها m=4 "
        "مقارنةً بدفعة واحدة من 16: يختلف tiny-gpt بمقدار {gpt} وشبكة MLP مع LayerNorm بمقدار {ln} (نسبيًا، "
        "تقريب float32)، أما شبكة MLP مع BatchNorm فبمقدار {bn}، لأن BatchNorm تطبّع كل دفعة مصغّرة بإحصاءاتها "
        "الخاصة.",
    "Only when every microbatch has the same number of supervised items. On variable-length addition problems "
    "({items} supervised tokens in 4 microbatches) dividing each microbatch mean by A misses the big-batch "
    "gradient by {steps} (relative); dividing the summed loss by the group's tokens misses it by {tokens}.":
        "فقط حين يكون في كل دفعة مصغّرة العدد نفسه من أهداف التنبؤ. على مسائل جمع متغيّرة الطول ({items} رمزًا "
        "مستهدفًا في 4 دفعات مصغّرة) تبتعد قسمة متوسط كل دفعة مصغّرة على A عن تدرّج الدفعة الكبيرة بمقدار {steps} "
        "(نسبيًا)، بينما تبتعد قسمة الخسارة المجموعة على رموز المجموعة بمقدار {tokens} فقط.",
    "No. The same 16 samples per update ran at {big} samples/s as one batch (16×1) and at {acc} samples/s as "
    "16 microbatches of 1 ({ratio}× on this machine). Accumulation buys memory, not speed: use it when the "
    "batch you want does not fit.":
        "لا. عولجت العينات الـ 16 نفسها لكل تحديث بسرعة {big} عينة/ث كدفعة واحدة (16×1) وبسرعة {acc} عينة/ث "
        "كـ 16 دفعة مصغّرة من عينة واحدة ({ratio}× على هذا الجهاز). التراكم يشتري الذاكرة لا السرعة: استعمله "
        "حين لا تتّسع الذاكرة للدفعة التي تريدها.",
    "The activations shrink with m; nothing else does. For 16 samples per update on tiny-gpt (hidden 128), one "
    "microbatch's saved activations drop from {big} (m=16) to {small} (m=2, A=8), an {cut}× cut. Weights, "
    "gradients and AdamW state stay at {fixed} either way; the measured process peaks were {peak_big} and "
    "{peak_small}.":
        "تصغر التفعيلات مع m ولا شيء غيرها. لـ 16 عينة لكل تحديث على tiny-gpt ‏(hidden 128) تنخفض التفعيلات "
        "المحفوظة لدفعة مصغّرة واحدة من {big} ‏(m=16) إلى {small} ‏(m=2, A=8)، أي تخفيض بـ {cut}×. تبقى الأوزان "
        "والتدرّجات وحالة AdamW عند {fixed} في الحالتين؛ وكانت ذروتا ذاكرة العملية المقيستان {peak_big} "
        "و{peak_small}.",
    "The course cannot give you a rule, but it can show what changed. On 1000 samples with m=8, A=4 makes {a4} "
    "updates per epoch and A=8 makes {a8}: a schedule written in updates now ends {ratio}× sooner in samples. "
    "Decide whether to keep the number of updates or the samples seen, and whether to scale the learning rate "
    "— then write that assumption into the run record.":
        "لا يستطيع المقرّر أن يعطيك قاعدة، لكنه يستطيع أن يريك ما الذي تغيّر. على 1000 عينة مع m=8 يعطي A=4 "
        "عدد {a4} تحديثًا في الحقبة ويعطي A=8 عدد {a8}: فالجدول المكتوب بالتحديثات ينتهي الآن أبكر بـ {ratio}× "
        "مقيسًا بالعينات. قرّر هل تحافظ على عدد التحديثات أم على عدد العينات المرئية، وهل تغيّر معدّل التعلّم، "
        "ثم اكتب هذا الافتراض في سجلّ التشغيل.",
    "No — once per applied update. Over {updates} updates of A={A} microbatches, a per-microbatch scheduler "
    "stepped {wrong} times and left the learning rate at {lr} instead of {expected}; stepped per update it took "
    "{right} steps, as planned.":
        "لا، بل مرة لكل تحديث مُطبَّق. خلال {updates} تحديثات من A={A} دفعات مصغّرة تقدّم مُجدوِل يخطو مع كل "
        "دفعة مصغّرة {wrong} خطوة وترك معدّل التعلّم عند {lr} بدل {expected}؛ أما حين يخطو مرة لكل تحديث فقد "
        "خطا {right} خطوات كما هو مخطّط.",
    "m={m} × A={A} × D={D} = {batch} samples per update ({per_replica} per replica, {devices} devices)":
        "m={m} × A={A} × D={D} = {batch} عينة لكل تحديث ({per_replica} لكل نسخة مكرَّرة، {devices} أجهزة)",
    "Only if all 8 are data-parallel replicas. With tensor parallelism of 2, the 8 GPUs hold {replicas} "
    "replicas: {plan}. Counting every card would claim {wrong} samples per update.":
        "فقط إذا كانت الثماني كلها نسخًا مكرَّرة لتوازي البيانات. مع توازي الموترات بدرجة 2 تحمل وحدات GPU "
        "الثماني {replicas} نسخ مكرَّرة: {plan}. وعدُّ كل بطاقة يعني ادّعاء {wrong} عينة لكل تحديث.",
    "You choose, and you write it down. 22 samples in microbatches of 2 make 11 microbatches: with A=4 the "
    "last group has 3. `keep` makes {keep} updates and processes the short group with its own denominator; "
    "`drop` makes {drop} and skips samples {ids}. Either way the record lists the samples affected.":
        "أنت تختار، وتدوّن اختيارك. تكوّن 22 عينة في دفعات مصغّرة من 2 عدد 11 دفعة مصغّرة: ومع A=4 تضم المجموعة "
        "الأخيرة 3 منها. يعطي `keep` عدد {keep} تحديثات ويعالج المجموعة الناقصة بمقامها الخاص؛ ويعطي `drop` "
        "عدد {drop} ويتخطّى العينات {ids}. وفي الحالتين يذكر السجلّ العينات المتأثرة.",
    "No. Checkpointing recomputes the same forward during backward; it changes memory and time, not the maths. "
    "On tiny-gpt the gradients with and without checkpointing every layer differ by {abs_diff} at most "
    "(relative {rel_diff}).":
        "لا. تعيد نقاط التفتيش حساب التمرير الأمامي نفسه أثناء التمرير الخلفي؛ فهي تغيّر الذاكرة والزمن لا "
        "الرياضيات. على tiny-gpt تختلف التدرّجات مع نقاط التفتيش في كل طبقة وبدونها بمقدار {abs_diff} على الأكثر "
        "(نسبيًا {rel_diff}).",
    "Measure both; they combine. Saved for backward per microbatch on tiny-gpt (hidden 128, sequence 32): m=8 "
    "keeps {m8}, m=8 with checkpointing {m8_ckpt}, m=2 (A×4 to keep the batch) {m2}, and both together "
    "{m2_ckpt}. Accumulation costs extra passes over the weights, checkpointing costs a recomputed forward: "
    "chapter 08 times both.":
        "قِس الاثنين؛ فهما يجتمعان. المحفوظ للتمرير الخلفي لكل دفعة مصغّرة على tiny-gpt ‏(hidden 128، طول "
        "التسلسل 32): يحفظ m=8 مقدار {m8}، وm=8 مع نقاط التفتيش {m8_ckpt}، وm=2 ‏(A×4 للحفاظ على الدفعة) {m2}، "
        "والاثنان معًا {m2_ckpt}. كلفة التراكم تمريرات إضافية على الأوزان، وكلفة نقاط التفتيش تمرير أمامي يُعاد "
        "حسابه: يقيس الفصل 08 زمن الاثنين.",
    "Because AdamW creates its state at the first step. Optimizer state was {before} through the first group's "
    "forwards and backwards and {after} after update 1 (two tensors per weight); gradients ({grads}) appear at "
    "the first backward. A forward-only check sees neither — watch a whole group and the first update.":
        "لأن AdamW تنشئ حالتها عند الخطوة الأولى. كانت حالة المُحسِّن {before} طوال التمريرات الأمامية والخلفية "
        "للمجموعة الأولى، ثم {after} بعد التحديث 1 (موتّران لكل وزن)؛ وتظهر التدرّجات ({grads}) عند أول تمرير "
        "خلفي. الفحص الذي لا يرى إلا التمرير الأمامي لا يرى أيًّا منهما: راقب مجموعة كاملة والتحديث الأول.",
    "Yes, and the counters must say so. With an overflow injected into the first group, the scaler skipped "
    "that update and lowered the scale from {before} to {after}: {attempted} updates attempted, {applied} "
    "applied, {scheduler} scheduler steps — the schedule follows the applied updates.":
        "نعم، ويجب أن تقول العدّادات ذلك. مع فيض مُحقَن في المجموعة الأولى تخطّى مُحجِّم التدرّجات ذلك التحديث "
        "وخفّض المعامل من {before} إلى {after}: ‏{attempted} تحديثات مُحاوَلة، و{applied} مُطبَّقة، و{scheduler} "
        "خطوات للمُجدوِل؛ فالجدول يتبع التحديثات المُطبَّقة.",
    "Compare the sample ids every replica processed. The first 8 ids of two replicas: sharded, {sharded} ids "
    "repeat; without sharding, {unsharded} of 8 repeat and {extra} of the 16 'samples' add nothing new. "
    "Chapter 06 runs this check on a real two-process run, where the engine refuses the update.":
        "قارن معرّفات العينات التي عالجتها كل نسخة مكرَّرة. أول 8 معرّفات لنسختين: مع توزيع البيانات يتكرّر "
        "{sharded} منها؛ ودون توزيع يتكرّر {unsharded} من 8، و{extra} من 'العينات' الـ 16 لا تضيف شيئًا جديدًا. "
        "يُجري الفصل 06 هذا الفحص على تشغيل حقيقي بعمليتين، حيث يرفض المحرّك التحديث.",
    "Because floating-point addition is not associative: A microbatches add in another order than one batch. "
    "After 10 AdamW updates of tiny-gpt trained both ways on the same samples, the largest weight difference "
    "is {fp32} in float32 and {fp64} in float64. Verify one update against a tolerance; compare finished runs "
    "by their metrics.":
        "لأن جمع الأعداد العشرية العائمة ليس تجميعيًا: تُجمع A دفعات مصغّرة بترتيب غير ترتيب الدفعة الواحدة. بعد "
        "10 تحديثات AdamW لـ tiny-gpt مُدرَّب بالطريقتين على العينات نفسها، يبلغ أكبر فرق في الأوزان {fp32} في "
        "float32 و{fp64} في float64. تحقّق من تحديث واحد مقابل سماحية، وقارن التشغيلات المنتهية بمقاييسها.",
    "on this GPU the device kept {kept} instead of {plain}": "على هذه الـ GPU احتفظ الجهاز بـ {kept} بدل {plain}",
    "on this CPU-only machine there is nothing to move: the bytes are the same with and without it ({kept})":
        "على هذا الجهاز الذي لا يملك إلا معالجًا مركزيًا لا شيء يُنقل: البايتات نفسها مع التفريغ وبدونه ({kept})",
    "Only when nothing else fits on the accelerator. With every layer checkpointed, what remains is each "
    "layer's input: for tiny-gpt with 4 layers, m=8, T=128 and hidden 256 that is {formula} by the formula "
    "layers × m × T × hidden × 4 bytes (measured {measured} with the shared mask). Offload moves it to pinned "
    "host memory; {where}. The price is a device→host copy in the forward and a host→device copy in the "
    "backward, on the compute stream: every update gets slower (chapter 08 times it on a GPU).":
        "فقط حين لا يتّسع المُسرِّع لشيء آخر. مع نقاط تفتيش في كل طبقة يبقى مُدخَل كل طبقة: لـ tiny-gpt بـ 4 "
        "طبقات وm=8 وT=128 وhidden 256 يبلغ ذلك {formula} وفق الصيغة layers × m × T × hidden × 4 bytes "
        "(المقيس {measured} مع القناع المشترك). ينقله التفريغ (offload) إلى الذاكرة المثبّتة في ذاكرة المضيف؛ "
        "{where}. الثمن نسخة من الجهاز إلى المضيف في التمرير الأمامي ونسخة من المضيف إلى الجهاز في التمرير "
        "الخلفي، على مسار الحساب: فيبطؤ كل تحديث (يقيس الفصل 08 ذلك على GPU).",
    "They answer different problems. Checkpointing keeps the batch and recomputes: its gradient equals the "
    "un-checkpointed one to {ckpt} (the same operations run again). Accumulation splits the batch: its "
    "gradient matches the big batch within rounding ({accumulated} relative on tiny-gpt) only when every layer "
    "treats samples independently — with BatchNorm it is off by {bn}. So: if one sample's activations are the "
    "problem (long sequences), checkpoint; if you want a bigger batch than fits, accumulate; if neither is "
    "enough, combine them (chapter 08 measures the product).":
        "يجيبان عن مشكلتين مختلفتين. نقاط التفتيش تُبقي الدفعة وتعيد الحساب: يساوي تدرّجها التدرّج دون نقاط "
        "تفتيش حتى {ckpt} (تُعاد العمليات نفسها). أما التراكم فيقسم الدفعة: يطابق تدرّجه تدرّج الدفعة الكبيرة "
        "ضمن التقريب ({accumulated} نسبيًا على tiny-gpt) فقط حين تعالج كل طبقة العينات مستقلةً، ومع BatchNorm "
        "يبتعد بمقدار {bn}. إذن: إن كانت المشكلة تفعيلات عينة واحدة (تسلسلات طويلة) فاستعمل نقاط التفتيش؛ وإن "
        "أردت دفعة أكبر مما تتّسع له الذاكرة فراكِم؛ وإن لم يكفِ أيّهما فاجمع بينهما (يقيس الفصل 08 أثرهما معًا).",
    "the Trainer measurement": "قياس Trainer",
    "Not measured here: {note} Without the measurement, the rule from the Hugging Face guide: the Trainer "
    "divides the summed loss by the group's supervised tokens (num_items_in_batch) when the model accepts it; "
    "a custom loss must do the same and declare it (loss_is_scaled_for_ga).":
        "لم يُقَس هنا: {note} ودون القياس، هذه قاعدة دليل Hugging Face: يقسم Trainer الخسارة المجموعة على الرموز "
        "المستهدفة في المجموعة (num_items_in_batch) حين يقبل النموذج ذلك؛ وعلى الخسارة المخصّصة أن تفعل الشيء نفسه وأن "
        "تصرّح به (loss_is_scaled_for_ga).",
    "With its defaults, yes. One Trainer update (per_device_train_batch_size=2, gradient_accumulation_steps=4) "
    "of a tiny GPT-2 on variable-length samples gives the gradient of gastudy's token-normalized engine to "
    "{tokens} (relative), and is {steps} away from a ÷A normalization. The Trainer counts the group's supervised "
    "tokens (num_items_in_batch) before the first backward. A custom compute_loss must divide its summed loss by "
    "that count — and the Trainer subclass must say so with loss_is_scaled_for_ga = True, or the loss is divided "
    "by A once more (chapter 03).":
        "بإعداداته الافتراضية، نعم. تحديث واحد لـ Trainer ‏(per_device_train_batch_size=2, "
        "gradient_accumulation_steps=4) على نموذج GPT-2 صغير جدًا وعينات متغيّرة الطول يعطي تدرّج محرّك gastudy "
        "المُطبَّع بالرموز حتى {tokens} (نسبيًا)، ويبتعد {steps} عن تطبيع ÷A. يعدّ Trainer الرموز المستهدفة في المجموعة "
        "(num_items_in_batch) قبل أول تمرير خلفي. على compute_loss المخصّصة أن تقسم خسارتها المجموعة على هذا "
        "العدد، وعلى الصنف الفرعي من Trainer أن يصرّح بذلك بـ loss_is_scaled_for_ga = True، وإلا قُسمت الخسارة "
        "على A مرة أخرى (الفصل 03).",
    # ---- exercises 12
    "answer with a fraction between 0 and 1, got {answer}": "أجب بكسر بين 0 و1؛ وصلنا: {answer}",
    "{share}: the activations shrink {cut}×, but weights, gradients and AdamW state ({fixed} bytes) do not, so "
    "the whole shrinks much less than the activations.":
        "{share}: تصغر التفعيلات {cut}×، لكن الأوزان والتدرّجات وحالة AdamW ‏({fixed} بايت) لا تصغر، لذا يصغر "
        "المجموع أقل بكثير من التفعيلات.",
    "answer as a fraction between 0 and 1, not a percentage": "أجب بكسر بين 0 و1، لا بنسبة مئوية",
    "{answer} is the cut in activations alone; the question asks about all tensor bytes: add the fixed part "
    "(fixed_m16) to the denominator":
        "{answer} هو التخفيض في التفعيلات وحدها؛ والسؤال عن كل بايتات الموترات: أضف الجزء الثابت (fixed_m16) "
        "إلى المقام",
    "{answer} is not it; compute (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) from "
    "ask('memory-saved').evidence":
        "ليس {answer}؛ احسب (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) من ask('memory-saved').evidence",
    "{bytes} bytes ≈ {mib} MiB per sample: multiply by m for a microbatch (chapter 08 shows the straight line).":
        "{bytes} بايت ≈ {mib} MiB لكل عينة: اضرب في m لدفعة مصغّرة (يعرض الفصل 08 الخط المستقيم).",
    "close ({answer} vs the measured {expected}); use the exact value saved_bytes(...).total":
        "قريب ({answer} مقابل {expected} المقيسة)؛ استعمل القيمة الدقيقة saved_bytes(...).total",
    "{answer} is off by {ratio}×; did you use m=1, sequence 32 and the model sizes given?":
        "{answer} بعيد بمقدار {ratio}×؛ هل استعملت m=1 وطول تسلسل 32 وأحجام النموذج المعطاة؟",
    # ---- chapters 10 and 11: check_loop on nanoGPT's loop
    'clipping per microbatch':
        'القصّ لكل دفعة مصغّرة',
    'clipping before unscale':
        'القصّ قبل unscale_',
    'missing division':
        'قسمة ناقصة',
    'wrong gradient':
        'تدرّج خاطئ',
    'passes':
        'ينجح',
    "nanoGPT's loop with its defaults passes, judged in {precision}: relative error {rel:.1e} ≤ tolerance {tol:.1e} (noise floor {floor:.1e})":
        'تنجح حلقة nanoGPT بإعداداتها الافتراضية، وقد حُكم عليها بدقة {precision}: الخطأ النسبي {rel:.1e} ≤ حدّ التسامح {tol:.1e} (أرضية الضجيج {floor:.1e})',
    'the clip fired and is part of the right update: norm {before:.3f} → {after:.3f}':
        'عمل قصّ التدرّجات وهو جزء من التحديث الصحيح: المعيار {before:.3f} ← {after:.3f}',
    'on variable lengths the same loop is the mean of microbatch means ({pct:.0f}% off the big batch)':
        'مع الأطوال المتغيّرة تصبح الحلقة نفسها متوسط متوسطات الدفعات المصغّرة (تبتعد ‎{pct:.0f}%‎ عن الدفعة الكبيرة)',
    'the report points at the line: {where}':
        'يشير التقرير إلى السطر: {where}',
    'the slip is found and its line named: {where}':
        'اكتُشف الخطأ وسُمّي سطره: {where}',
    'expected':
        'المتوقَّع',
    'verdict':
        'الحكم',
    'the line named':
        'السطر المشار إليه',
    "nanoGPT's own loop passes and each of its {n} slips is named":
        'تنجح حلقة nanoGPT الأصلية ويُسمّى كلٌّ من أخطائها الـ{n}',
}
