"""The course's user-visible strings in tr: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    ' vs ':
        ' / ',
    ' — one extra per row: the first position has no target (shift!)':
        ' — her satırda bir fazla: ilk konumun hedefi yoktur (kaydırma!)',
    '(derived) effective batch':
        '(türetilmiş) etkin yığın',
    '(no rows)':
        '(satır yok)',
    '. Use shift_labels when present, else labels[..., 1:]; skip -100.':
        '. Varsa shift_labels, yoksa labels[..., 1:] kullanın; -100 olanları atlayın.',
    '1 row':
        '1 satır',
    '1/A (steps)':
        '1/A (steps)',
    '125 is the number of microbatches: that schedule would run 4× too fast.':
        '125 mikro yığın sayısıdır: o takvim 4 kat hızlı ilerlerdi.',
    '1×32 keeps {ratio}× what 4×8 keeps per microbatch.':
        "1×32, mikro yığın başına 4×8'in tuttuğunun {ratio} katını tutar.",
    '50 samples in microbatches of 4 make 13 microbatches (the last one short).':
        "50 örnek, 4'lük mikro yığınlarla 13 mikro yığın eder (sonuncusu eksik).",
    'A (run 2)':
        'A (2. çalıştırma)',
    'A GPU is present: chapters 08 and 09 also measure device memory (torch.cuda peaks) and the time cost of offloading.':
        'Bir GPU var: 08 ve 09. bölümler cihaz belleğini (torch.cuda tepe değerleri) ve boşaltmanın zaman maliyetini de ölçer.',
    'A collective operation: every process gives a tensor and every process gets all of them. Used to agree on group sizes, sample ids and the global denominator.':
        'Kolektif bir işlem: her süreç bir tensör verir ve her süreç hepsini alır. Grup boyutları, örnek kimlikleri ve genel payda üzerinde uzlaşmak için kullanılır.',
    'A collective operation: every process gives a tensor and every process gets back their sum (or mean). DDP all-reduces the gradients after the backward of the last microbatch.':
        'Kolektif bir işlem: her süreç bir tensör verir ve her süreç bunların toplamını (ya da ortalamasını) geri alır. DDP, gradyanları son mikro yığının geri geçişinden sonra all-reduce eder.',
    'A last group with fewer than A microbatches: kept with its true denominator or dropped, and its samples recorded.':
        "A'dan az mikro yığınlı son grup: gerçek paydasıyla tutulur ya da atılır ve örnekleri kaydedilir.",
    'A skipped step is attempted, not applied; the scheduler follows applied.':
        'Atlanan bir adım denenmiş ama uygulanmamıştır; zamanlayıcı uygulanan adımları izler.',
    'A tensor the forward pass computes and keeps for the backward pass. Activation memory grows with the microbatch m and the sequence length; it is what accumulation bounds.':
        'İleri geçişin hesaplayıp geri geçiş için sakladığı tensör. Aktivasyon belleği mikro yığın boyutu m ve dizi uzunluğuyla büyür; birikimin sınırladığı şey budur.',
    'A × m (same 32 samples)':
        'A × m (aynı 32 örnek)',
    'An attempted step that really changed the parameters. The scheduler follows these.':
        'Parametreleri gerçekten değiştiren denenmiş bir adım. Zamanlayıcı bunları izler.',
    'An optimizer step that was tried; a gradient scaler may skip it.':
        'Denenen bir optimize edici adımı; gradyan ölçekleyici onu atlayabilir.',
    'Built by {command} in {seconds} s.':
        "{command} ile {seconds} sn'de oluşturuldu.",
    'CHANGED':
        'DEĞİŞTİ',
    "Communication back-ends of torch.distributed: gloo runs on CPUs (this course's 2-process demos), NCCL between NVIDIA GPUs.":
        "torch.distributed'ın iletişim arka uçları: gloo CPU'larda çalışır (bu kursun 2 süreçli gösterimleri), NCCL NVIDIA GPU'ları arasında.",
    "Computes one microbatch's contribution to the gradients and ADDS it to the gradient tensors; it never changes the parameters.":
        'Bir mikro yığının gradyanlara katkısını hesaplar ve bunu gradyan tensörlerine EKLER; parametreleri asla değiştirmez.',
    'Course index':
        'Kurs dizini',
    'D (replicas)':
        'D (replikalar)',
    "DDP's context manager that skips the gradient all-reduce; it must cover the forward and the backward of every microbatch but the last, or DDP communicates anyway (measured in 06).":
        "DDP'nin gradyan all-reduce işlemini atlayan bağlam yöneticisi; sonuncusu hariç her mikro yığının ileri ve geri geçişini kapsamalıdır, yoksa DDP yine de iletişim kurar (06'da ölçülür).",
    'DIFFER':
        'FARKLI',
    'Exercise {key}':
        'Alıştırma {key}',
    'Exercise {key}: {status} — {feedback}':
        'Alıştırma {key}: {status} — {feedback}',
    'False (wrong here)':
        'False (burada yanlış)',
    'GA-1 · accumulate A microbatches of m, compare with one batch of m·A':
        'GA-1 · m boyutlu A mikro yığını biriktirin, m·A boyutlu tek bir yığınla karşılaştırın',
    'GA-1 · activation memory of one microbatch: A×m splits of 32 samples':
        'GA-1 · bir mikro yığının aktivasyon belleği: 32 örneğin A×m bölünüşleri',
    'GA-3 · the two knobs, and the groups they make':
        'GA-3 · iki ayar ve oluşturdukları gruplar',
    'GA-4 · tokens vs steps vs mean, against the big batch':
        'GA-4 · tokens, steps ve mean, büyük yığına karşı',
    'GA-5 · what counts as one supervised item':
        'GA-5 · bir denetlenen öğe olarak ne sayılır',
    'GA-6 · loss_is_scaled_for_ga: declared right or wrong':
        'GA-6 · loss_is_scaled_for_ga: doğru ya da yanlış bildirilmiş',
    "Glossary: the course's words are the library's words":
        'Sözlük: kursun kelimeleri kütüphanenin kelimeleridir',
    'Gradient accumulation and activation checkpointing, done right':
        'Gradyan birikimi ve aktivasyon kontrol noktaları, doğru biçimde',
    'Keeping the activations of only some layers and recomputing the rest during backward: less memory, one extra forward of those layers. Also called gradient checkpointing.':
        'Yalnızca bazı katmanların aktivasyonlarını saklayıp geri kalanını geri geçiş sırasında yeniden hesaplamak: daha az bellek, o katmanlar için bir ek ileri geçiş. Gradient checkpointing olarak da bilinir.',
    'KiB alive':
        'canlı KiB',
    'KiB saved for backward':
        'geri geçiş için saklanan KiB',
    'MB-1 · one pair of runs, four x-axes':
        'MB-1 · bir çift çalıştırma, dört x ekseni',
    'MB-1 · the two zero_grad mistakes, measured and named':
        'MB-1 · iki zero_grad hatası, ölçülmüş ve adlandırılmış',
    'MB-2 · effective batch calculator':
        'MB-2 · etkin yığın hesaplayıcı',
    'MB-2 · same m·A, different memory and time':
        'MB-2 · aynı m·A, farklı bellek ve süre',
    'MB-3 · mean of means on real variable-length data':
        'MB-3 · gerçek değişken uzunluklu veride ortalamaların ortalaması',
    'MB-3 · weighted mean vs mean of means':
        'MB-3 · ağırlıklı ortalama ve ortalamaların ortalaması',
    'MB-4 · boundaries and denominator first':
        'MB-4 · önce sınırlar ve payda',
    'MB-4 · memory held between microbatches':
        'MB-4 · mikro yığınlar arasında tutulan bellek',
    'MB-4 · the short last group: keep or drop':
        'MB-4 · eksik son grup: tut ya da at',
    'MB-5 · an injected overflow: skipped update and scale change':
        'MB-5 · enjekte edilen taşma: atlanan güncelleme ve ölçek değişimi',
    'MB-5 · clip the unscaled gradients':
        'MB-5 · ölçeği geri alınmış gradyanları kırpın',
    'MB-5 · fp32, bf16 and fp16 (with a scaler) on this machine':
        'MB-5 · bu makinede fp32, bf16 ve fp16 (ölçekleyiciyle)',
    'MB-6 ({title}) is taught in {notebook}.':
        'MB-6 ({title}) {notebook} defterinde anlatılıyor.',
    'MB-6 · the scheduler follows updates, not microbatches':
        'MB-6 · zamanlayıcı mikro yığınları değil güncellemeleri izler',
    "Microbatches per group (the framework knob 'gradient accumulation steps').":
        "Grup başına mikro yığın sayısı (kütüphanelerdeki 'gradient accumulation steps' ayarı).",
    'Moving saved activations to host memory during forward and back for backward (torch.autograd.graph.save_on_cpu): device memory traded for copies.':
        'Saklanan aktivasyonları ileri geçiş sırasında ana belleğe taşıyıp geri geçiş için geri getirmek (torch.autograd.graph.save_on_cpu): cihaz belleği kopyalama karşılığında kazanılır.',
    'NOT FOUND':
        'BULUNAMADI',
    'NOT trained':
        'EĞİTİLMEDİ',
    "No GPU here: on a GPU the same code autocasts on 'cuda' and fp16/bf16 also save memory and time; on the CPU they only show the numerics.":
        "Burada GPU yok: bir GPU'da aynı kod 'cuda' üzerinde autocast yapar ve fp16/bf16 bellek ve zamandan da tasarruf sağlar; CPU'da yalnızca sayısal davranışı gösterirler.",
    'No GPU: every number in the course is measured on the CPU. Memory is measured as bytes saved for backward (the same quantity a GPU allocator would hold); GPU-only effects (offload copies, device peaks) are explained and skipped.':
        'GPU yok: kurstaki her sayı CPU üzerinde ölçülür. Bellek, geri geçiş için saklanan bayt olarak ölçülür (bir GPU bellek ayırıcısının tutacağı miktarın aynısı); yalnızca GPU’da görülen etkiler (boşaltma kopyaları, cihaz tepe belleği) açıklanır ve atlanır.',
    'One backward per microbatch; one update per group of A microbatches.':
        'Her mikro yığın için bir geri geçiş; A mikro yığınlık her grup için bir güncelleme.',
    'One data-parallel copy of the model processing its own share of the samples (D of them). Devices splitting ONE model (tensor/pipeline parallel) are not replicas.':
        'Modelin, örneklerin kendi payını işleyen veri paralel bir kopyası (D tane). TEK bir modeli bölen cihazlar (tensör/ardışık düzen paralelliği) replika değildir.',
    'One optimizer step: the parameters change once per group, then the gradients are zeroed.':
        'Tek bir optimize edici adımı: parametreler grup başına bir kez değişir, ardından gradyanlar sıfırlanır.',
    'Page-locked host memory: the GPU can copy to and from it asynchronously. Offloaded activations are kept there.':
        'Sayfası kilitli ana bellek: GPU buraya ve buradan eşzamansız kopyalama yapabilir. Boşaltılan aktivasyonlar burada tutulur.',
    'Partial checkpointing: only the first marked layer and every n-th after it are checkpointed (n = 2 → layers 1, 3, 5 …); the others keep their activations.':
        'Kısmi kontrol noktası: yalnızca işaretlenen ilk katman ve ondan sonraki her n. katman kontrol noktasına alınır (n = 2 → katman 1, 3, 5 …); diğerleri aktivasyonlarını saklar.',
    'Positions that have a target and enter the loss: not padding, not -100, and for a causal LM not the first position of a sequence.':
        'Hedefi olan ve kayba giren konumlar: dolgu değil, -100 değil ve nedensel bir dil modelinde bir dizinin ilk konumu değil.',
    'Resident set size: the physical memory a process holds, as the operating system counts it. On the CPU it is the memory measure that includes everything.':
        'Yerleşik küme boyutu (RSS): bir sürecin tuttuğu fiziksel bellek, işletim sisteminin saydığı şekliyle. CPU’da her şeyi içeren bellek ölçüsü budur.',
    'Samples per update over all replicas: m × A × D. A count, not a memory or speed ranking.':
        'Tüm replikalarda güncelleme başına örnek sayısı: m × A × D. Bir sayımdır; bellek ya da hız sıralaması değildir.',
    'Section map: every section of the source documents and its notebook':
        'Bölüm haritası: kaynak belgelerin her bölümü ve onu anlatan defter',
    'Sharded data parallelism: each replica stores only a shard of parameters, gradients and optimizer state and gathers the rest when needed (PyTorch FSDP, DeepSpeed ZeRO). Each replica still counts in D.':
        'Parçalanmış veri paralelliği: her replika parametrelerin, gradyanların ve optimize edici durumunun yalnızca bir parçasını saklar, gerisini gerektiğinde toplar (PyTorch FSDP, DeepSpeed ZeRO). Her replika yine de D içinde sayılır.',
    'Teaching this in a room? Read the {link}.':
        'Bu kursu bir sınıfta mı anlatacaksınız? Şuna göz atın: {link}.',
    'The A microbatches whose contributions make one update. Its boundaries, sample ids and denominator are fixed before its first backward.':
        'Katkıları tek bir güncellemeyi oluşturan A mikro yığın. Sınırları, örnek kimlikleri ve paydası ilk geri geçişinden önce belirlenir.',
    "The layer that hands memory to tensors and keeps freed blocks for reuse (PyTorch's caching allocator on a GPU), so memory allocated by tensors and memory reserved differ.":
        "Tensörlere bellek veren ve serbest bırakılan blokları yeniden kullanmak için tutan katman (GPU'da PyTorch'un önbellekli bellek ayırıcısı); bu yüzden tensörlere ayrılan bellek ile rezerve edilen bellek farklıdır.",
    'The samples one replica pushes through one forward pass (m of them). Memory is spent per microbatch.':
        'Bir replikanın tek bir ileri geçişten geçirdiği örnekler (m tane). Bellek mikro yığın başına harcanır.',
    'The static edition of the gastudy course: every notebook was executed on {stamp} and every plot and table below is the measurement that run produced. Nothing here needs a kernel; to change the inputs, open the notebooks in JupyterLab.':
        "gastudy kursunun statik sürümü: her defter {stamp} tarihinde çalıştırıldı ve aşağıdaki her grafik ve tablo o çalıştırmanın ölçümüdür. Burada hiçbir şey çekirdek gerektirmez; girdileri değiştirmek için defterleri JupyterLab'da açın.",
    'The supervised items of the whole group (all microbatches, all replicas); the summed loss is divided by it exactly once.':
        'Tüm grubun denetlenen öğeleri (tüm mikro yığınlar, tüm replikalar); toplanan kayıp buna tam olarak bir kez bölünür.',
    "The unit of every loss in the course: cross-entropy with the natural logarithm. Guessing uniformly among the 16 tokens of the course's vocabulary costs ln 16 ≈ 2.77 nats.":
        'Kurstaki her kaybın birimi: doğal logaritmayla çapraz entropi. Kursun sözcük dağarcığındaki 16 token arasında rastgele tahmin etmenin maliyeti ln 16 ≈ 2.77 nat’tır.',
    'True (right)':
        'True (doğru)',
    'What the summed loss is divided by: tokens (correct), steps (÷ A) or mean (mean of microbatch means).':
        'Toplanan kaybın neye bölündüğü: tokens (doğru), steps (÷ A) ya da mean (mikro yığın ortalamalarının ortalaması).',
    'a constant divisor A would weight it {ratio}× (expected {expected} = {n}/{A})':
        'sabit bir A böleni onu {ratio}× ağırlıklandırırdı (beklenen {expected} = {n}/{A})',
    'acc. steps':
        'birikim adımı',
    'after unscale (right)':
        'unscale sonrası (doğru)',
    'all':
        'tümü',
    'all {n} rows':
        '{n} satırın tümü',
    'answer':
        'cevap',
    'answer True or False':
        'True ya da False ile cevap verin',
    'answer with a dict with keys {keys}':
        'anahtarları {keys} olan bir sözlükle (dict) cevap verin',
    'answer with a list holding exactly these names: {names}':
        'tam olarak şu adları içeren bir listeyle cevap verin: {names}',
    'answer with a number':
        'bir sayıyla cevap verin',
    'answer with your counting function itself':
        'sayma fonksiyonunuzun kendisiyle cevap verin',
    'answer with your update function itself (not its result)':
        'güncelleme fonksiyonunuzun kendisiyle cevap verin (sonucuyla değil)',
    'applied':
        'uygulandı',
    'applied gradient norm':
        'uygulanan gradyan normu',
    'applied update':
        'uygulanan güncelleme',
    'attempted update':
        'denenen güncelleme',
    'attempted {attempted}, applied {applied}, scheduler steps {scheduler}, backward passes {backward}':
        'denenen {attempted}, uygulanan {applied}, zamanlayıcı adımı {scheduler}, geri geçiş {backward}',
    'backward passes so far (k)':
        'şimdiye kadarki geri geçişler (k)',
    'batch/dev':
        'yığın/cihaz',
    'before unscale (wrong)':
        'unscale öncesi (yanlış)',
    'bias':
        'sapma',
    'bias of the mean of means: {bias}':
        'ortalamaların ortalamasının sapması: {bias}',
    'big batch':
        'büyük yığın',
    'causal, packed (shift_labels)':
        'nedensel, paketlenmiş (shift_labels)',
    'causal, padded':
        'nedensel, dolgulu',
    'classification':
        'sınıflandırma',
    'clip before the step, or the step uses unclipped gradients':
        'adımdan önce kırpın, yoksa adım kırpılmamış gradyanları kullanır',
    'clip runs on scaled gradients — unscale_ first':
        'kırpma ölçeklenmiş gradyanlar üzerinde çalışıyor — önce unscale_',
    'correct':
        'doğru',
    'count error':
        'sayım hatası',
    "counted: {distinct} distinct samples in update 1; each replica's share: {shares}":
        'sayılan: 1. güncellemede {distinct} farklı örnek; her replikanın payı: {shares}',
    'data':
        'veri',
    'declared':
        'bildirilen',
    'declared {declared}, A = {A}: gradient ÷ {k}':
        'bildirilen {declared}, A = {A}: gradyan ÷ {k}',
    'denominator':
        'payda',
    'document':
        'belge',
    'drop':
        'at',
    'equal counts (ln-mlp)':
        'eşit sayımlar (ln-mlp)',
    'equals big batch':
        'büyük yığına eşit',
    'expected: min(true, max_norm)':
        'beklenen: min(gerçek, max_norm)',
    'forget zero_grad':
        "zero_grad'ı unut",
    'forward calls while counting: {calls}; engine denominators {state}':
        'sayım sırasında ileri çağrılar: {calls}; motorun paydaları {state}',
    'found, {kind}':
        'bulundu, {kind}',
    'framework knob':
        'kütüphane ayarı',
    'gap':
        'fark',
    'gap to fp32 big batch':
        'fp32 büyük yığına fark',
    "gap to the group's big batch":
        'grubun büyük yığınına fark',
    "give the notebook's name as a string, got {kind}":
        'defterin adını bir dize (str) olarak verin; gelen tür: {kind}',
    'gradient':
        'gradyan',
    'gradient gap (mean)':
        'gradyan farkı (mean)',
    'gradient gap (tokens)':
        'gradyan farkı (tokens)',
    'gradient gap to the big batch (%)':
        'büyük yığına gradyan farkı (%)',
    'gradient norm grows towards the big batch':
        'gradyan normu büyük yığına doğru büyür',
    "gradient size at the step ÷ the big batch's: {ratios}":
        'adımdaki gradyan büyüklüğü ÷ büyük yığınınki: {ratios}',
    'grads':
        'gradyanlar',
    'group':
        'grup',
    'group loss (nats)':
        'grup kaybı (nat)',
    'held-out group':
        'ayrılmış grup',
    'in the code: {where} ({found})':
        'kodda: {where} ({found})',
    'items':
        'öğeler',
    'items 1':
        'öğe 1',
    'items 2':
        'öğe 2',
    'items per microbatch':
        'mikro yığın başına öğe',
    'items so far':
        'şimdiye kadarki öğeler',
    'items ÷ denominator (tokens)':
        'öğe ÷ payda (tokens)',
    'keep':
        'tut',
    'keep graph-attached losses':
        'grafa bağlı kayıpları tut',
    'kind':
        'tür',
    'labels counted without the shift':
        'etiketler kaydırılmadan sayıldı',
    'last group':
        'son grup',
    'learning rate used':
        'kullanılan öğrenme oranı',
    'log2 scale':
        'log2 ölçek',
    'logged loss':
        'kaydedilen kayıp',
    'logits dtype':
        'logits veri türü',
    'loop':
        'döngü',
    'loss (mistaken)':
        'kayıp (hatalı)',
    'loss (right)':
        'kayıp (doğru)',
    'loss (token-weighted, per update)':
        'kayıp (token ağırlıklı, güncelleme başına)',
    'masked LM':
        'maskeli dil modeli',
    'match':
        'eşleşiyor',
    'mean loss':
        'ortalama kayıp',
    'mean loss 1':
        'ortalama kayıp 1',
    'mean loss 2':
        'ortalama kayıp 2',
    'mean of means':
        'ortalamaların ortalaması',
    'mean over all tokens':
        'tüm tokenların ortalaması',
    "mean |bias| = {bias} nats; gradient gap of a 'mean' update: {gap} (tokens: {tokens_gap}, tolerance {tol})":
        "ortalama |sapma| = {bias} nat; 'mean' güncellemesinin gradyan farkı: {gap} (tokens: {tokens_gap}, tolerans {tol})",
    'meaning':
        'anlamı',
    'measured gap':
        'ölçülen fark',
    'measured {actual}, expected {expected} within {tol}':
        'ölçülen {actual}, beklenen {expected} ({tol} tolerans içinde)',
    'measured: {truth}.':
        'ölçülen: {truth}.',
    'measuring…':
        'ölçülüyor…',
    'measuring… {text}':
        'ölçülüyor… {text}',
    'memory one microbatch keeps (KiB)':
        'bir mikro yığının tuttuğu bellek (KiB)',
    'microbatch':
        'mikro yığın',
    'microbatch (start)':
        'mikro yığın (başlangıç)',
    'microbatch of group 0':
        "grup 0'ın mikro yığını",
    'microbatches':
        'mikro yığınlar',
    'microbatches (forward passes)':
        'mikro yığınlar (ileri geçişler)',
    'min(true norm, max_norm)':
        'min(gerçek norm, max_norm)',
    'missing here: {missing}; install it with: {command}':
        'burada eksik: {missing}; şununla kurun: {command}',
    'mistake':
        'hata',
    'mistaken':
        'hatalı',
    'mistaken count':
        'hatalı sayım',
    'ms per update':
        'güncelleme başına ms',
    'norm':
        'norm',
    'norm of the gradient the optimizer used':
        'optimize edicinin kullandığı gradyanın normu',
    'normalization':
        'normalleştirme',
    'not attempted yet':
        'henüz denenmedi',
    'not {answer}. How many data-parallel replicas do 8 GPUs make if each model spans 2?':
        '{answer} değil. Her model 2 GPU kaplıyorsa 8 GPU kaç veri paralel replika eder?',
    'not {answer}: count optimizer updates, not microbatches.':
        '{answer} değil: mikro yığınları değil, optimize edici güncellemelerini sayın.',
    'notebook':
        'defter',
    'nothing':
        'hiçbiri',
    'on the {name} batch your function raised {error}: {message}':
        '{name} yığınında fonksiyonunuz {error} hatası verdi: {message}',
    "one microbatch's activations":
        'bir mikro yığının aktivasyonları',
    'optimizer update':
        'optimize edici güncellemesi',
    'optimizer updates':
        'optimize edici güncellemeleri',
    'overflow at':
        'taşma anı',
    'overflow injected':
        'taşma enjekte edildi',
    'parameters changed':
        'parametreler değişti',
    'partial':
        'eksik',
    'passed':
        'geçti',
    'per microbatch':
        'mikro yığın başına',
    'per update':
        'güncelleme başına',
    'pipeline ∥':
        'ardışık düzen ∥',
    'precision':
        'duyarlılık',
    'rel. gap to big batch':
        'büyük yığına göreli fark',
    'relative gap':
        'göreli fark',
    'relative gap to the big-batch gradient':
        'büyük yığın gradyanına göreli fark',
    'release each graph (correct)':
        'her grafı serbest bırak (doğru)',
    'replica {rep}\n{n} samples':
        'replika {rep}\n{n} örnek',
    'right':
        'doğru',
    'right count':
        'doğru sayım',
    'right on padded and packed batches, with and without ignored prompts.':
        'dolgulu ve paketlenmiş yığınlarda, yok sayılan istemler olsa da olmasa da doğru.',
    'rows':
        'satırlar',
    'run time':
        'çalışma süresi',
    'samples':
        'örnekler',
    'samples in the update':
        'güncellemedeki örnekler',
    'samples seen':
        'görülen örnekler',
    'saved KiB':
        'saklanan KiB',
    'scale after':
        'sonraki ölçek',
    'scale used':
        'kullanılan ölçek',
    'scaler':
        'ölçekleyici',
    'scaler.update() comes after the step attempt it judges':
        'scaler.update(), değerlendirdiği adım denemesinden sonra gelir',
    'scheduler per microbatch':
        'mikro yığın başına zamanlayıcı',
    'scheduler per update':
        'güncelleme başına zamanlayıcı',
    'scheduler steps: {steps}':
        'zamanlayıcı adımları: {steps}',
    'section':
        'bölüm',
    'sections':
        'bölümler',
    'sequence':
        'dizi',
    'sequence {seq_len}: {split} keeps {size}':
        'dizi {seq_len}: {split} {size} tutar',
    'share of the update':
        'güncellemedeki pay',
    'short last group ({n} of A={A} microbatches), policy {policy}: samples {ids} ':
        'eksik son grup (A={A} mikro yığından {n} tanesi), politika {policy}: örnekler {ids} ',
    'size relative to the big batch':
        'büyük yığına göre büyüklük',
    'skipped':
        'atlandı',
    'step':
        'adım',
    'supervise':
        'denetlenen',
    'supervised items (the denominator)':
        'denetlenen öğeler (payda)',
    'supervised items per microbatch: {items}':
        'mikro yığın başına denetlenen öğeler: {items}',
    'supervised tokens seen':
        'görülen denetlenen tokenlar',
    'tensor ∥':
        'tensör ∥',
    'term':
        'terim',
    "the Hugging Face gradient differs from gastudy's ({normalization} normalization): relative gap {gap} (tolerance {tol}), norm ratio {ratio}":
        "Hugging Face gradyanı gastudy'ninkinden farklı ({normalization} normalleştirmesi): göreli fark {gap} (tolerans {tol}), norm oranı {ratio}",
    "the Hugging Face gradient matches gastudy's ({normalization} normalization): relative gap {gap} (tolerance {tol}), norm ratio {ratio}":
        "Hugging Face gradyanı gastudy'ninkiyle eşleşiyor ({normalization} normalleştirmesi): göreli fark {gap} (tolerans {tol}), norm oranı {ratio}",
    'the course, static edition':
        'kurs, statik sürüm',
    "the gradient at each step is the whole group's big-batch gradient, once per group.":
        'her adımdaki gradyan, tüm grubun büyük yığın gradyanıdır; grup başına bir kez.',
    'the groups divide the data evenly: no short last group':
        'gruplar veriyi tam bölüyor: eksik son grup yok',
    'the loss: a small bias':
        'kayıp: küçük bir sapma',
    'the same samples padded count {padded} items after the shift; shift_labels count {right}':
        'aynı örnekler dolgulu olarak kaydırmadan sonra {padded} öğe sayar; shift_labels {right} sayar',
    "the samples' labels counted without the shift":
        'örneklerin etiketleri kaydırılmadan sayıldı',
    'the scheduler steps only after an applied optimizer step':
        'zamanlayıcı yalnızca uygulanmış bir optimize edici adımından sonra ilerler',
    'the update: a large gap':
        'güncelleme: büyük bir fark',
    'time per update (ms, this machine)':
        'güncelleme başına süre (ms, bu makine)',
    'title':
        'başlık',
    'token-weighted':
        'token ağırlıklı',
    'tokens':
        'tokens',
    'tolerance':
        'tolerans',
    'tolerance {tol}':
        'tolerans {tol}',
    'torch.amp.GradScaler: multiplies the fp16 loss by a scale so small gradients do not underflow, divides it out before clipping and the step, skips a step with inf/NaN and lowers the scale.':
        'torch.amp.GradScaler: küçük gradyanlar alttan taşmasın diye fp16 kaybını bir ölçekle çarpar, kırpmadan ve adımdan önce bu ölçeği geri böler, inf/NaN içeren bir adımı atlar ve ölçeği düşürür.',
    'torch.autocast: runs selected operations (mainly matrix multiplications) in bf16 or fp16 while weights, gradients and optimizer stay float32. It wraps the forward, never the step.':
        'torch.autocast: seçilen işlemleri (özellikle matris çarpımlarını) bf16 ya da fp16 ile çalıştırır; ağırlıklar, gradyanlar ve optimize edici float32 kalır. İleri geçişi sarar, asla adımı değil.',
    'trained with their own denominator':
        'kendi paydalarıyla eğitildi',
    'unchanged':
        'değişmedi',
    'unscale once, clip the true gradients, attempt the step, update the scale, then the schedule.':
        'ölçeği bir kez geri alın (unscale), gerçek gradyanları kırpın, adımı deneyin, ölçeği güncelleyin, sonra zamanlayıcıyı ilerletin.',
    'update':
        'güncelleme',
    'updates':
        'güncellemeler',
    'value':
        'değer',
    'variable lengths (tiny-gpt)':
        'değişken uzunluklar (tiny-gpt)',
    'warm-up':
        'ısınma',
    'weight (mean of means)':
        'ağırlık (ortalamaların ortalaması)',
    'weight (tokens)':
        'ağırlık (tokens)',
    'weighted (Σ n·mean / Σ n)':
        'ağırlıklı (Σ n·ortalama / Σ n)',
    'what it shows':
        'ne gösteriyor',
    'with A={answer}: {plan} — not 256.':
        'A={answer} ile: {plan} — 256 değil.',
    'workshop guide':
        'atölye rehberi',
    'write your answer above (in place of None) and run this cell.':
        'cevabınızı yukarıya (None yerine) yazın ve bu hücreyi çalıştırın.',
    'wrong: counting all {devices} devices as replicas would claim {naive} samples per update — tensor/pipeline devices split one model, they add no samples.':
        'yanlış: {devices} cihazın hepsini replika saymak güncelleme başına {naive} örnek iddia ederdi — tensör/ardışık düzen cihazları tek bir modeli böler, örnek eklemez.',
    'x = {axis}: last x = {values}':
        'x = {axis}: son x = {values}',
    'x-axis':
        'x ekseni',
    'you counted all 8 GPUs as replicas; two GPUs share one model copy (tensor parallel).':
        '8 GPU’nun hepsini replika saydınız; iki GPU tek bir model kopyasını paylaşıyor (tensör paralelliği).',
    'your function raised {error}: {message}':
        'fonksiyonunuz {error} hatası verdi: {message}',
    'zero per microbatch':
        'her mikro yığında sıfırla',
    'zero_grad ends the group (before it, the gradients are still needed)':
        'zero_grad grubu bitirir (ondan önce gradyanlara hâlâ ihtiyaç var)',
    '{answer} is not it; compute (100·1 + 300·2 + 600·3) ÷ 1000.':
        '{answer} değil; (100·1 + 300·2 + 600·3) ÷ 1000 hesaplayın.',
    '{answer} is the mean of means; weight each mean by its items.':
        '{answer} ortalamaların ortalamasıdır; her ortalamayı kendi öğe sayısıyla ağırlıklandırın.',
    '{control}: only {value} applies on this machine':
        '{control}: bu makinede yalnızca {value} geçerli',
    '{devices} devices (grey) = D {replicas} × tensor {tp} × pipeline {pp}; {batch} samples per update':
        '{devices} cihaz (gri) = D {replicas} × tensör {tp} × ardışık düzen {pp}; güncelleme başına {batch} örnek',
    '{key}: you said {value}':
        '{key}: sizin cevabınız {value}',
    '{kind}: {diff} items':
        '{kind}: {diff} öğe',
    "{name} is not it. Look MB-6 up in the section map above, or call gastudy.course.notebook_for('MB-6').":
        "{name} değil. MB-6'yı yukarıdaki bölüm haritasında arayın ya da gastudy.course.notebook_for('MB-6') çağırın.",
    '{name}: {got} instead of {right}':
        '{name}: {right} yerine {got}',
    '{n} rows':
        '{n} satır',
    '{passes} forward/backward passes, {updates} optimizer updates.':
        '{passes} ileri/geri geçiş, {updates} optimize edici güncellemesi.',
    '{samples} samples → {updates} updates':
        '{samples} örnek → {updates} güncelleme',
    '{trained} of {total} samples trained ({policy})':
        '{total} örnekten {trained} tanesi eğitildi ({policy})',
    '{truth}: the short last group holds only the last microbatch.':
        '{truth}: eksik son grup yalnızca son mikro yığını içerir.',
    '{variable}=1 is set':
        '{variable}=1 ayarlı',
    'Σ n·mean ÷ Σ n = {right}.':
        'Σ n·ortalama ÷ Σ n = {right}.',
    '→ optimizer.step() with G1+…+G{A} (= one batch of {batch}), then zero_grad().   max |Δ| = {abs_diff}, relative {rel_diff} (tolerance {tol} in {dtype}); parameters {state} during the group':
        '→ G1+…+G{A} ile optimizer.step() (= {batch} boyutlu tek yığın), ardından zero_grad().   en büyük |Δ| = {abs_diff}, göreli {rel_diff} ({dtype} için tolerans {tol}); grup boyunca parametreler {state}',
    '⌈125 microbatches ÷ 4⌉ = {right} updates, one scheduler step each.':
        '⌈125 mikro yığın ÷ 4⌉ = {right} güncelleme, her biri için bir zamanlayıcı adımı.',
    '✓ right':
        '✓ doğru',
    '✗ not yet':
        '✗ henüz değil',
    '✗ {claim} — this no longer holds. {detail}':
        '✗ {claim} — bu artık geçerli değil. {detail}',
    "⤼ skipped: {what}. This cell runs the Hugging Face APIs for real and needs the optional 'hf' extra ({why}). The rest of the chapter does not depend on it.":
        "⤼ atlandı: {what}. Bu hücre Hugging Face API'lerini gerçekten çalıştırır ve isteğe bağlı 'hf' ekini gerektirir ({why}). Bölümün geri kalanı buna bağlı değildir.",
}
