"""Turkish texts of the labs and exercises of chapters 10–12 (verifier, run record, clinic,
questions). Part of the Turkish table (see :func:`gastudy.course.i18n.table_modules`)."""

STRINGS: dict[str, str] = {
    # ---- chapter 01 (the logging-axes lab's progress note)
    "training m={m}, A={A}": "eğitiliyor: m={m}, A={A}",
    # ---- chapter 10: the verifier and the run record
    "MB-10 · Verify one update on a small controlled set before any campaign":
        "MB-10 · Her deney dizisinden önce tek bir güncellemeyi küçük, denetimli bir kümede doğrulayın",
    "MB-10 · The run record: everything needed to interpret or repeat the run":
        "MB-10 · Çalışma kaydı: çalışmayı yorumlamak ya da tekrarlamak için gereken her şey",
    "gradient equals the big batch": "gradyan büyük yığınınkine eşit",
    "same sample ids": "aynı örnek kimlikleri",
    "finite gradients": "sonlu gradyanlar",
    "gradients zero at the group boundary": "grup sınırında gradyanlar sıfır",
    "exactly one optimizer step": "tam olarak bir optimize edici adımı",
    "exactly one scheduler step": "tam olarak bir zamanlayıcı adımı",
    "gradient equals the single-process big batch": "gradyan tek süreçli büyük yığınınkine eşit",
    "same gradient on every replica": "her replikada aynı gradyan",
    "sample ids distinct across replicas": "örnek kimlikleri replikalar arasında farklı",
    "global denominator = the big batch's supervised items": "ortak payda = büyük yığının denetlenen öğeleri",
    "check": "denetim",
    "ok": "sonuç",
    "PASSED": "GEÇTİ",
    "FAILED:": "BAŞARISIZ:",
    "preparation": "hazırlık",
    "trial": "deneme",
    "accepted": "kabul edilen",
    "stage": "aşama",
    "observed peak {peak}; saved to {json} and {markdown}":
        "gözlenen tepe bellek {peak}; {json} ve {markdown} dosyalarına kaydedildi",
    # ---- exercises 10
    "answer with a dict of verify arguments, got {answer}":
        "verify argümanlarından oluşan bir dict ile yanıtlayın; gelen: {answer}",
    "the exercise asks for precision='bf16', accumulation_steps=8 on model 'tiny-gpt'":
        "alıştırma 'tiny-gpt' modelinde precision='bf16' ve accumulation_steps=8 istiyor",
    "verify(**answer) raised {error}: {message}": "verify(**answer) {error} hatası verdi: {message}",
    "passed: relative gap {gap} within bf16's tolerance {tol}.":
        "geçti: göreli fark {gap}, bf16 toleransı {tol} içinde.",
    "it fails: {reasons}": "başarısız: {reasons}",
    "answer with a whole number of samples, got {answer}": "örnek sayısını tam sayı olarak verin; gelen: {answer}",
    "{expected} samples: 150 samples make 38 microbatches (the last holds 2), so after 9 full groups the last "
    "group has {microbatches} microbatches.":
        "{expected} örnek: 150 örnek 38 mikro yığın eder (sonuncusunda 2 örnek var); bu yüzden 9 tam gruptan "
        "sonra son grupta {microbatches} mikro yığın kalır.",
    "that is the number of microbatches; the question asks for samples.":
        "bu mikro yığın sayısı; soru örnek sayısını soruyor.",
    "{answer} is not it; look at record.result.record.last_group['groups'][0]['sample_ids']":
        "{answer} değil; record.result.record.last_group['groups'][0]['sample_ids'] değerine bakın",
    # ---- chapter 11: the clinic
    "MB-11 · The clinic: pick a pitfall, watch its detector fire, then watch the fix":
        "MB-11 · Klinik: bir tuzak seçin, dedektörünün alarm verdiğini, sonra düzeltmeyi izleyin",
    "MB-11 · Every pitfall, its detector and its fix": "MB-11 · Her tuzak, dedektörü ve düzeltmesi",
    "the loss is abnormally small": "kayıp olağandışı derecede küçük",
    "a division applied twice (loss already ÷ items, then ÷ A again), an inflated denominator, or fp16 "
    "gradients clipped while still scaled":
        "iki kez uygulanan bir bölme (kayıp zaten öğe sayısına bölünmüş, sonra bir de A'ya), şişirilmiş bir payda "
        "ya da hâlâ ölçekliyken kırpılmış fp16 gradyanları",
    "the result changes when the same samples are split differently":
        "aynı örnekler farklı bölündüğünde sonuç değişiyor",
    "ignored tokens counted, or a mean of microbatch means instead of a token-weighted mean":
        "yok sayılan tokenlar sayılmış ya da token ağırlıklı ortalama yerine mikro yığın ortalamalarının "
        "ortalaması alınmış",
    "accumulation has no effect (or leaks across updates)":
        "birikimin hiçbir etkisi yok (ya da güncellemeler arasında sızıyor)",
    "where zero_grad and optimizer.step are called": "zero_grad ve optimizer.step'in nerede çağrıldığı",
    "memory grows with every microbatch of a group": "bellek, grubun her mikro yığınıyla büyüyor",
    "references kept between microbatches (losses still attached to their graphs)":
        "mikro yığınlar arasında tutulan referanslar (hâlâ grafiklerine bağlı kayıplar)",
    "the learning-rate schedule is shifted": "öğrenme oranı takvimi kaymış",
    "whether the scheduler counts backward passes instead of applied updates":
        "zamanlayıcının uygulanan güncellemeler yerine geri geçişleri sayıp saymadığı",
    "double division": "çift bölme",
    "partition dependence": "bölünmeye bağımlılık",
    "ineffective accumulation": "etkisiz birikim",
    "memory growth": "bellek büyümesi",
    "schedule drift": "takvim kayması",
    "zero_grad inside the microbatch loop: only the last microbatch's gradient reaches the step (MB-1)":
        "mikro yığın döngüsünün içinde zero_grad: adıma yalnızca son mikro yığının gradyanı ulaşır (MB-1)",
    "no zero_grad between groups: the previous group's gradient leaks into the next update (MB-1)":
        "gruplar arasında zero_grad yok: önceki grubun gradyanı bir sonraki güncellemeye sızar (MB-1)",
    "a loss already divided by num_items declared as not scaled: divided again by A (GA-6)":
        "num_items'a zaten bölünmüş bir kayıp ölçeklenmemiş diye bildirilmiş: bir kez daha A'ya bölünür (GA-6)",
    "mean of microbatch means on variable-length data: the result depends on how samples are split (MB-3)":
        "değişken uzunluklu veride mikro yığın ortalamalarının ortalaması: sonuç örneklerin nasıl bölündüğüne "
        "bağlı olur (MB-3)",
    "microbatch means ÷ the configured A: a short last group is under-weighted by size/A (MB-4)":
        "mikro yığın ortalamaları ÷ ayarlanan A: eksik son grubun ağırlığı boyut/A oranında düşük kalır (MB-4)",
    "causal items counted without the shift: the denominator is too large by one per row (GA-5)":
        "nedensel öğeler kaydırma olmadan sayılmış: payda her satır için bir fazla (GA-5)",
    "scheduler stepped per microbatch: the schedule runs A× too fast (MB-6)":
        "zamanlayıcı her mikro yığında adım atıyor: takvim A kat hızlı ilerler (MB-6)",
    "graph-attached losses summed across microbatches: activations of every microbatch stay alive (MB-4)":
        "grafiğe bağlı kayıplar mikro yığınlar boyunca toplanmış: her mikro yığının aktivasyonları bellekte "
        "kalır (MB-4)",
    "fp16: clipping the scaled gradients before unscale_: the applied gradient shrinks by the loss scale (MB-5)":
        "fp16: ölçekli gradyanları unscale_'den önce kırpmak: uygulanan gradyan kayıp ölçeği kadar küçülür (MB-5)",
    "pitfall": "tuzak",
    "fixed": "düzeltilmiş",
    "logged (pitfall)": "kaydedilen (tuzak)",
    "logged (fixed)": "kaydedilen (düzeltilmiş)",
    "loss of the group (nats)": "grubun kaybı (nat)",
    "gradient {k}× smaller than the big batch's": "gradyan büyük yığınınkinden {k} kat küçük",
    "the same samples split as m × A": "aynı örnekler m × A olarak bölünmüş",
    "gradient change (relative)": "gradyan değişimi (göreli)",
    "update {g}": "güncelleme {g}",
    "|Δ| from the group's true gradient (relative)": "grubun gerçek gradyanından |Δ| (göreli)",
    "microbatch index in the group": "mikro yığının gruptaki sırası",
    "KiB still alive at its start": "başlangıcında hâlâ canlı KiB",
    "schedule per update": "güncelleme başına takvim",
    "learning rate": "öğrenme oranı",
    "symptom:": "belirti:",
    "look for:": "bakılacak yer:",
    "the pitfall": "tuzak",
    "detector on the pitfall:": "tuzakta dedektör:",
    "detector on the fix:": "düzeltmede dedektör:",
    "A = {A}: {ok} of {n} detectors fire on their pitfall and stay quiet on the fix; the last column is what "
    "each measured, and that moves with A":
        "A = {A}: {n} dedektörden {ok} tanesi kendi tuzağında alarm veriyor ve düzeltmede sessiz kalıyor; son "
        "sütun her birinin ölçtüğü değer ve o, A ile değişiyor",
    "symptom": "belirti",
    "detector": "dedektör",
    "fires on the pitfall": "tuzakta alarm verir",
    "quiet on the fix": "düzeltmede sessiz",
    "measured on the pitfall": "tuzakta ölçülen",
    # ---- exercises 11
    "answer with a function f(model, optimizer, scheduler, group) -> float, got {answer}":
        "f(model, optimizer, scheduler, group) -> float biçiminde bir fonksiyonla yanıtlayın; gelen: {answer}",
    "your update function raised {error}: {message}": "güncelleme fonksiyonunuz {error} hatası verdi: {message}",
    "all five detectors are quiet: {symptoms}.": "beş dedektörün beşi de sessiz: {symptoms}.",
    "answer with a number (the factor k), got {answer}": "bir sayıyla (k çarpanı) yanıtlayın; gelen: {answer}",
    "k = {k} = {implied} ÷ {denominator} items: one extra item for each of the {rows} rows whose first label "
    "is supervised.":
        "k = {k} = {implied} ÷ {denominator} öğe: ilk etiketi denetlenen {rows} satırın her biri için bir fazla "
        "öğe.",
    "that is 1/k: the gradient is k times *smaller*, so k > 1.":
        "bu 1/k: gradyan k kat *daha küçük*, yani k > 1.",
    "{answer} is not the measured factor; read case.result.before.evidence['k']":
        "{answer} ölçülen çarpan değil; case.result.before.evidence['k'] değerini okuyun",
    # ---- chapter 12: the questions
    "MB-12 · Ask a question; the answer is measured now": "MB-12 · Bir soru sorun; yanıt şimdi ölçülür",
    "question": "soru",
    "Q: {question}": "S: {question}",
    "Measured just now · sections {sections} · taught in {chapter}":
        "Az önce ölçüldü · bölümler {sections} · anlatıldığı yer {chapter}",
    "Is accumulating A microbatches the same as one batch A times larger?":
        "A mikro yığını biriktirmek, A kat büyük tek bir yığınla aynı şey mi?",
    "Can I simply divide each microbatch's loss by A?": "Her mikro yığının kaybını basitçe A'ya bölebilir miyim?",
    "Will accumulation make my training faster?": "Birikim eğitimimi hızlandırır mı?",
    "How much memory does a smaller microbatch really save?":
        "Daha küçük bir mikro yığın gerçekte ne kadar bellek kazandırır?",
    "If I change A, must I change the learning rate?": "A'yı değiştirirsem öğrenme oranını da değiştirmeli miyim?",
    "Should the scheduler step once per microbatch?": "Zamanlayıcı her mikro yığında bir adım mı atmalı?",
    "I train on 8 GPUs: is my effective batch m × A × 8?": "8 GPU'da eğitiyorum: etkin yığınım m × A × 8 mi?",
    "What happens to the samples of the last, short group?": "Eksik son grubun örneklerine ne olur?",
    "Does activation checkpointing change my gradients?":
        "Aktivasyon kontrol noktası (checkpointing) gradyanlarımı değiştirir mi?",
    "Checkpointing or a smaller microbatch: which saves more memory?":
        "Checkpointing mi, daha küçük bir mikro yığın mı: hangisi daha çok bellek kazandırır?",
    "Why does memory jump at the first update?": "Bellek neden ilk güncellemede sıçrıyor?",
    "With fp16, can an update be skipped — and does the schedule notice?":
        "fp16 ile bir güncelleme atlanabilir mi — takvim bunu fark eder mi?",
    "How do I know each GPU sees different samples?": "Her GPU'nun farklı örnekler gördüğünü nasıl bilirim?",
    "Why are my weights not bit-identical after switching to accumulation?":
        "Birikime geçtikten sonra ağırlıklarım neden bit düzeyinde aynı değil?",
    "Should I offload activations to the CPU?": "Aktivasyonları CPU'ya boşaltmalı mıyım (offload)?",
    "Checkpointing or accumulation: which one changes my training?":
        "Checkpointing mi, birikim mi: hangisi eğitimimi değiştirir?",
    "Does the Hugging Face Trainer normalize accumulation correctly?":
        "Hugging Face Trainer birikimi doğru normalleştiriyor mu?",
    "Only when every layer treats samples independently. One update of A=4 microbatches of m=4 against one "
    "batch of 16: tiny-gpt differs by {gpt} and the LayerNorm MLP by {ln} (relative, float32 rounding), the "
    "BatchNorm MLP by {bn} — BatchNorm normalizes each microbatch with its own statistics.":
        "Yalnızca her katman örnekleri birbirinden bağımsız işliyorsa. m=4'lük A=4 mikro yığından oluşan bir "
        "güncellemeyi 16'lık tek bir yığınla karşılaştırınca: tiny-gpt {gpt}, LayerNorm MLP {ln} kadar farklı "
        "(göreli, float32 yuvarlaması); BatchNorm MLP ise {bn} kadar — BatchNorm her mikro yığını kendi "
        "istatistikleriyle normalleştirir.",
    "Only when every microbatch has the same number of supervised items. On variable-length addition problems "
    "({items} supervised tokens in 4 microbatches) dividing each microbatch mean by A misses the big-batch "
    "gradient by {steps} (relative); dividing the summed loss by the group's tokens misses it by {tokens}.":
        "Yalnızca her mikro yığında denetlenen öğe sayısı aynıysa. Değişken uzunluklu toplama problemlerinde "
        "(4 mikro yığında {items} denetlenen token) her mikro yığın ortalamasını A'ya bölmek büyük yığının "
        "gradyanını {steps} (göreli) ıskalar; toplam kaybı grubun token sayısına bölmek ise yalnızca {tokens} "
        "kadar.",
    "No. The same 16 samples per update ran at {big} samples/s as one batch (16×1) and at {acc} samples/s as "
    "16 microbatches of 1 ({ratio}× on this machine). Accumulation buys memory, not speed: use it when the "
    "batch you want does not fit.":
        "Hayır. Güncelleme başına aynı 16 örnek tek yığın olarak (16×1) saniyede {big} örnek, 1'lik 16 mikro "
        "yığın olarak saniyede {acc} örnek hızla işlendi (bu makinede {ratio} kat). Birikim hız değil bellek "
        "kazandırır: istediğiniz yığın belleğe sığmadığında kullanın.",
    "The activations shrink with m; nothing else does. For 16 samples per update on tiny-gpt (hidden 128), one "
    "microbatch's saved activations drop from {big} (m=16) to {small} (m=2, A=8), an {cut}× cut. Weights, "
    "gradients and AdamW state stay at {fixed} either way; the measured process peaks were {peak_big} and "
    "{peak_small}.":
        "m ile yalnızca aktivasyonlar küçülür, başka hiçbir şey değil. tiny-gpt'de (hidden 128) güncelleme "
        "başına 16 örnek için bir mikro yığının sakladığı aktivasyonlar {big} (m=16) değerinden {small} "
        "(m=2, A=8) değerine iner: {cut} kat azalma. Ağırlıklar, gradyanlar ve AdamW durumu her iki durumda da "
        "{fixed}; ölçülen süreç tepe bellekleri {peak_big} ve {peak_small} oldu.",
    "The course cannot give you a rule, but it can show what changed. On 1000 samples with m=8, A=4 makes {a4} "
    "updates per epoch and A=8 makes {a8}: a schedule written in updates now ends {ratio}× sooner in samples. "
    "Decide whether to keep the number of updates or the samples seen, and whether to scale the learning rate "
    "— then write that assumption into the run record.":
        "Kurs size bir kural veremez ama neyin değiştiğini gösterebilir. m=8 ile 1000 örnekte A=4 dönem başına "
        "{a4} güncelleme, A=8 ise {a8} güncelleme yapar: güncelleme cinsinden yazılmış bir takvim artık örnek "
        "cinsinden {ratio} kat erken biter. Güncelleme sayısını mı yoksa görülen örnekleri mi koruyacağınıza ve "
        "öğrenme oranını ölçekleyip ölçeklemeyeceğinize karar verin — sonra bu varsayımı çalışma kaydına yazın.",
    "No — once per applied update. Over {updates} updates of A={A} microbatches, a per-microbatch scheduler "
    "stepped {wrong} times and left the learning rate at {lr} instead of {expected}; stepped per update it took "
    "{right} steps, as planned.":
        "Hayır — uygulanan her güncellemede bir kez. A={A} mikro yığınlık {updates} güncelleme boyunca mikro "
        "yığın başına adım atan zamanlayıcı {wrong} adım attı ve öğrenme oranını {expected} yerine {lr} "
        "değerinde bıraktı; güncelleme başına adım atınca planlandığı gibi {right} adım attı.",
    "m={m} × A={A} × D={D} = {batch} samples per update ({per_replica} per replica, {devices} devices)":
        "m={m} × A={A} × D={D} = güncelleme başına {batch} örnek (replika başına {per_replica}, {devices} cihaz)",
    "Only if all 8 are data-parallel replicas. With tensor parallelism of 2, the 8 GPUs hold {replicas} "
    "replicas: {plan}. Counting every card would claim {wrong} samples per update.":
        "Yalnızca 8'inin hepsi veri paralelliği replikasıysa. Tensör paralelliği 2 iken 8 GPU {replicas} "
        "replika barındırır: {plan}. Her kartı saymak güncelleme başına {wrong} örnek iddia ederdi.",
    "You choose, and you write it down. 22 samples in microbatches of 2 make 11 microbatches: with A=4 the "
    "last group has 3. `keep` makes {keep} updates and processes the short group with its own denominator; "
    "`drop` makes {drop} and skips samples {ids}. Either way the record lists the samples affected.":
        "Siz seçersiniz ve bunu yazarsınız. 2'lik mikro yığınlarda 22 örnek 11 mikro yığın eder: A=4 ile son "
        "grupta 3 tane kalır. `keep` {keep} güncelleme yapar ve eksik grubu kendi paydasıyla işler; `drop` "
        "{drop} güncelleme yapar ve {ids} örneklerini atlar. Her iki durumda da kayıt etkilenen örnekleri listeler.",
    "No. Checkpointing recomputes the same forward during backward; it changes memory and time, not the maths. "
    "On tiny-gpt the gradients with and without checkpointing every layer differ by {abs_diff} at most "
    "(relative {rel_diff}).":
        "Hayır. Checkpointing geri geçiş sırasında aynı ileri geçişi yeniden hesaplar; belleği ve süreyi "
        "değiştirir, matematiği değil. tiny-gpt'de her katmana checkpointing uygulanmış ve uygulanmamış "
        "gradyanlar en fazla {abs_diff} (göreli {rel_diff}) farklı.",
    "Measure both; they combine. Saved for backward per microbatch on tiny-gpt (hidden 128, sequence 32): m=8 "
    "keeps {m8}, m=8 with checkpointing {m8_ckpt}, m=2 (A×4 to keep the batch) {m2}, and both together "
    "{m2_ckpt}. Accumulation costs extra passes over the weights, checkpointing costs a recomputed forward: "
    "chapter 08 times both.":
        "İkisini de ölçün; birlikte kullanılabilirler. tiny-gpt'de (hidden 128, dizi 32) mikro yığın başına geri "
        "geçiş için saklanan: m=8 {m8}, checkpointing ile m=8 {m8_ckpt}, m=2 (yığını korumak için A×4) {m2}, "
        "ikisi birlikte {m2_ckpt}. Birikimin bedeli ağırlıklar üzerinden ek geçişler, checkpointing'inki yeniden "
        "hesaplanan bir ileri geçiştir: bölüm 08 ikisinin de süresini ölçer.",
    "Because AdamW creates its state at the first step. Optimizer state was {before} through the first group's "
    "forwards and backwards and {after} after update 1 (two tensors per weight); gradients ({grads}) appear at "
    "the first backward. A forward-only check sees neither — watch a whole group and the first update.":
        "Çünkü AdamW durumunu ilk adımda oluşturur. Optimize edici durumu ilk grubun ileri ve geri geçişleri "
        "boyunca {before}, 1. güncellemeden sonra {after} oldu (ağırlık başına iki tensör); gradyanlar ({grads}) "
        "ilk geri geçişte ortaya çıkar. Yalnızca ileri geçişe bakan bir denetim ikisini de görmez — bütün bir "
        "grubu ve ilk güncellemeyi izleyin.",
    "Yes, and the counters must say so. With an overflow injected into the first group, the scaler skipped "
    "that update and lowered the scale from {before} to {after}: {attempted} updates attempted, {applied} "
    "applied, {scheduler} scheduler steps — the schedule follows the applied updates.":
        "Evet, ve sayaçlar bunu söylemeli. İlk gruba bir taşma enjekte edilince ölçekleyici o güncellemeyi atladı "
        "ve ölçeği {before} değerinden {after} değerine düşürdü: {attempted} güncelleme denendi, {applied} "
        "uygulandı, {scheduler} zamanlayıcı adımı — takvim uygulanan güncellemeleri izler.",
    "Compare the sample ids every replica processed. The first 8 ids of two replicas: sharded, {sharded} ids "
    "repeat; without sharding, {unsharded} of 8 repeat and {extra} of the 16 'samples' add nothing new. "
    "Chapter 06 runs this check on a real two-process run, where the engine refuses the update.":
        "Her replikanın işlediği örnek kimliklerini karşılaştırın. İki replikanın ilk 8 kimliği: veri "
        "bölüştürülünce {sharded} kimlik tekrarlanıyor; bölüştürülmeyince 8'in {unsharded} tanesi tekrarlanıyor "
        "ve 16 'örneğin' {extra} tanesi yeni bir şey katmıyor. Bölüm 06 bu denetimi gerçek iki süreçli bir "
        "çalışmada yapar; orada motor güncellemeyi reddeder.",
    "Because floating-point addition is not associative: A microbatches add in another order than one batch. "
    "After 10 AdamW updates of tiny-gpt trained both ways on the same samples, the largest weight difference "
    "is {fp32} in float32 and {fp64} in float64. Verify one update against a tolerance; compare finished runs "
    "by their metrics.":
        "Çünkü kayan noktalı toplama birleşmeli değildir: A mikro yığın, tek bir yığından farklı bir sırayla "
        "toplanır. Aynı örneklerde iki yolla eğitilen tiny-gpt'nin 10 AdamW güncellemesinden sonra en büyük "
        "ağırlık farkı float32'de {fp32}, float64'te {fp64}. Tek bir güncellemeyi bir toleransla doğrulayın; "
        "biten çalışmaları metrikleriyle karşılaştırın.",
    "on this GPU the device kept {kept} instead of {plain}": "bu GPU'da cihazda {plain} yerine {kept} kaldı",
    "on this CPU-only machine there is nothing to move: the bytes are the same with and without it ({kept})":
        "yalnızca CPU'lu bu makinede taşınacak bir şey yok: bayt sayısı boşaltmayla da boşaltmasız da aynı "
        "({kept})",
    "Only when nothing else fits on the accelerator. With every layer checkpointed, what remains is each "
    "layer's input: for tiny-gpt with 4 layers, m=8, T=128 and hidden 256 that is {formula} by the formula "
    "layers × m × T × hidden × 4 bytes (measured {measured} with the shared mask). Offload moves it to pinned "
    "host memory; {where}. The price is a device→host copy in the forward and a host→device copy in the "
    "backward, on the compute stream: every update gets slower (chapter 08 times it on a GPU).":
        "Yalnızca hızlandırıcıya başka hiçbir şey sığmıyorsa. Her katmana checkpointing uygulanınca geriye her "
        "katmanın girdisi kalır: 4 katmanlı tiny-gpt için m=8, T=128 ve hidden 256 ile bu, katman × m × T × "
        "hidden × 4 bayt formülüyle {formula} eder (paylaşılan maskeyle ölçülen {measured}). Boşaltma (offload) "
        "bunu sabitlenmiş ana belleğe taşır; {where}. Bedeli ileri geçişte cihazdan ana belleğe, geri geçişte "
        "ana bellekten cihaza bir kopyadır ve hesaplama akışında yapılır: her güncelleme yavaşlar (bölüm 08 "
        "bunu bir GPU'da ölçer).",
    "They answer different problems. Checkpointing keeps the batch and recomputes: its gradient equals the "
    "un-checkpointed one to {ckpt} (the same operations run again). Accumulation splits the batch: its "
    "gradient matches the big batch within rounding ({accumulated} relative on tiny-gpt) only when every layer "
    "treats samples independently — with BatchNorm it is off by {bn}. So: if one sample's activations are the "
    "problem (long sequences), checkpoint; if you want a bigger batch than fits, accumulate; if neither is "
    "enough, combine them (chapter 08 measures the product).":
        "Farklı sorunlara yanıt verirler. Checkpointing yığını korur ve yeniden hesaplar: gradyanı "
        "checkpointing'siz olanla {ckpt} içinde aynıdır (aynı işlemler yeniden çalışır). Birikim yığını böler: "
        "gradyanı büyük yığınınkini yuvarlama sınırında ({accumulated}, tiny-gpt'de göreli) ancak her katman "
        "örnekleri bağımsız işliyorsa tutturur — BatchNorm ile {bn} kadar sapar. Yani: sorun tek bir örneğin "
        "aktivasyonlarıysa (uzun diziler) checkpointing; belleğe sığandan büyük bir yığın istiyorsanız birikim; "
        "ikisi de yetmezse ikisini birleştirin (bölüm 08 çarpımı ölçer).",
    "the Trainer measurement": "Trainer ölçümü",
    "Not measured here: {note} Without the measurement, the rule from the Hugging Face guide: the Trainer "
    "divides the summed loss by the group's supervised tokens (num_items_in_batch) when the model accepts it; "
    "a custom loss must do the same and declare it (loss_is_scaled_for_ga).":
        "Burada ölçülmedi: {note} Ölçüm olmadan, Hugging Face kılavuzundaki kural: model kabul ettiğinde "
        "Trainer toplam kaybı grubun denetlenen token sayısına (num_items_in_batch) böler; özel bir kayıp da aynısını "
        "yapmalı ve bunu bildirmelidir (loss_is_scaled_for_ga).",
    "With its defaults, yes. One Trainer update (per_device_train_batch_size=2, gradient_accumulation_steps=4) "
    "of a tiny GPT-2 on variable-length samples gives the gradient of gastudy's token-normalized engine to "
    "{tokens} (relative), and is {steps} away from a ÷A normalization. The Trainer counts the group's supervised "
    "tokens (num_items_in_batch) before the first backward. A custom compute_loss must divide its summed loss by "
    "that count — and the Trainer subclass must say so with loss_is_scaled_for_ga = True, or the loss is divided "
    "by A once more (chapter 03).":
        "Varsayılan ayarlarıyla evet. Değişken uzunluklu örneklerde küçük bir GPT-2'nin tek bir Trainer "
        "güncellemesi (per_device_train_batch_size=2, gradient_accumulation_steps=4), gastudy'nin tokena göre "
        "normalleştiren motorunun gradyanını {tokens} (göreli) içinde verir ve ÷A normalleştirmesinden {steps} "
        "uzaktadır. Trainer grubun denetlenen tokenlarını (num_items_in_batch) ilk geri geçişten önce sayar. "
        "Özel bir compute_loss toplam kaybını bu sayıya bölmelidir — ve Trainer alt sınıfı bunu "
        "loss_is_scaled_for_ga = True ile bildirmelidir; yoksa kayıp bir kez daha A'ya bölünür (bölüm 03).",
    # ---- exercises 12
    "answer with a fraction between 0 and 1, got {answer}": "0 ile 1 arasında bir oranla yanıtlayın; gelen: {answer}",
    "{share}: the activations shrink {cut}×, but weights, gradients and AdamW state ({fixed} bytes) do not, so "
    "the whole shrinks much less than the activations.":
        "{share}: aktivasyonlar {cut} kat küçülür ama ağırlıklar, gradyanlar ve AdamW durumu ({fixed} bayt) "
        "küçülmez; bu yüzden toplam, aktivasyonlardan çok daha az küçülür.",
    "answer as a fraction between 0 and 1, not a percentage": "yüzde olarak değil, 0 ile 1 arasında bir oran olarak yanıtlayın",
    "{answer} is the cut in activations alone; the question asks about all tensor bytes: add the fixed part "
    "(fixed_m16) to the denominator":
        "{answer} yalnızca aktivasyonlardaki azalma; soru tüm tensör baytlarını soruyor: sabit kısmı (fixed_m16) "
        "paydaya ekleyin",
    "{answer} is not it; compute (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) from "
    "ask('memory-saved').evidence":
        "{answer} değil; ask('memory-saved').evidence içinden (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) "
        "hesaplayın",
    "{bytes} bytes ≈ {mib} MiB per sample: multiply by m for a microbatch (chapter 08 shows the straight line).":
        "örnek başına {bytes} bayt ≈ {mib} MiB: bir mikro yığın için m ile çarpın (bölüm 08 doğrusal ilişkiyi "
        "gösterir).",
    "close ({answer} vs the measured {expected}); use the exact value saved_bytes(...).total":
        "yakın ({answer}, ölçülen {expected}); tam değeri, saved_bytes(...).total'ı kullanın",
    "{answer} is off by {ratio}×; did you use m=1, sequence 32 and the model sizes given?":
        "{answer}, {ratio} kat sapıyor; m=1, dizi uzunluğu 32 ve verilen model boyutlarını kullandınız mı?",
    # ---- chapters 10 and 11: check_loop on nanoGPT's loop
    'clipping per microbatch':
        'mikro yığın başına kırpma',
    'clipping before unscale':
        'unscale_ öncesi kırpma',
    'missing division':
        'eksik bölme',
    'wrong gradient':
        'yanlış gradyan',
    'passes':
        'geçer',
    "nanoGPT's loop with its defaults passes, judged in {precision}: relative error {rel:.1e} ≤ tolerance {tol:.1e} (noise floor {floor:.1e})":
        "nanoGPT'nin döngüsü varsayılan ayarlarıyla geçer; {precision} duyarlılığında değerlendirildi: göreli hata {rel:.1e} ≤ tolerans {tol:.1e} (gürültü tabanı {floor:.1e})",
    'the clip fired and is part of the right update: norm {before:.3f} → {after:.3f}':
        'gradyan kırpma devreye girdi ve doğru güncellemenin parçası: norm {before:.3f} → {after:.3f}',
    'on variable lengths the same loop is the mean of microbatch means ({pct:.0f}% off the big batch)':
        'değişken uzunluklarda aynı döngü mikro yığın ortalamalarının ortalamasıdır (büyük yığından %{pct:.0f} uzakta)',
    'the report points at the line: {where}':
        'rapor satırı gösteriyor: {where}',
    'the slip is found and its line named: {where}':
        'hata bulundu ve satırı gösterildi: {where}',
    'expected':
        'beklenen',
    'verdict':
        'karar',
    'the line named':
        'gösterilen satır',
    "nanoGPT's own loop passes and each of its {n} slips is named":
        "nanoGPT'nin kendi döngüsü geçer ve {n} hatanın her biri adlandırılır",
}
