"""The Turkish (tr) strings of chapters 06–09's labs and exercises: English text (as written in the
code) → translation. Merged with ``strings_tr.py`` by :func:`gastudy.course.i18n.table`; a text
appears in only one module. Renderings of :mod:`gastudy.course.i18n.terms`; ``{fields}`` unchanged;
Latin digits.
"""

STRINGS: dict[str, str] = {
    ' ({ratio}× the forward-only peak)':
        ' (yalnızca ileri geçiş tepesinin {ratio} katı)',
    '+ attention mask':
        '+ dikkat maskesi',
    '10 epochs keep the samples seen, not the number of updates.':
        '10 dönem görülen örnek sayısını korur, güncelleme sayısını değil.',
    'A forward-only check peaks at {forward} above the start; the first group with its update peaks at {first}{ratio}: gradients ({gradients}) appear in the backward and optimizer state ({state}) only at the first update.':
        'Yalnızca ileri geçişle yapılan bir deneme başlangıcın {forward} üstünde tepe yapar; ilk grup, güncellemesiyle birlikte {first}{ratio} tepe yapar: gradyanlar ({gradients}) geri geçişte, optimize edici durumu ({state}) ise ancak ilk güncellemede ortaya çıkar.',
    'A={A} microbatches of m={m} vs one batch':
        'm={m} boyutunda A={A} mikro yığın / tek yığın',
    'BatchNorm at m = {m}':
        'm = {m} için BatchNorm',
    'BatchNorm gap at effective batch {n}':
        '{n} etkin yığında BatchNorm farkı',
    'CK-1 · Bytes kept for backward grow with the batch and the sequence; checkpointing keeps far fewer':
        'CK-1 · Geri geçiş için saklanan baytlar yığın ve dizi uzunluğuyla büyür; kontrol noktası (checkpointing) çok daha azını saklar',
    'CK-2 · Checkpointing combines with accumulation: time and memory of the four choices':
        'CK-2 · Kontrol noktası birikimle birleşir: dört seçeneğin süresi ve belleği',
    'CK-2, CK-3 · Memory against time as n grows: fewer checkpoints, more memory, less recomputation':
        'CK-2, CK-3 · n büyüdükçe bellek ve süre: daha az kontrol noktası, daha çok bellek, daha az yeniden hesaplama',
    'CK-3 · every_n_layers: the first layer and every n-th after it':
        'CK-3 · every_n_layers: ilk katman ve ondan sonra her n. katman',
    'CK-4 · Offloading the checkpointed activations to host memory':
        'CK-4 · Kontrol noktalı aktivasyonları ana belleğe boşaltma',
    'CK-4 · What a checkpointed layer still keeps: the formula against the measurement':
        'CK-4 · Kontrol noktalı bir katmanın yine de sakladığı: formül ve ölçüm',
    'CP':
        'KN',
    'D (processes)':
        'D (süreçler)',
    'D={D} processes × m={m} × A={A} = {n} samples (float64)':
        'D={D} süreç × m={m} × A={A} = {n} örnek (float64)',
    'FAILED':
        'BAŞARISIZ',
    'GA-2 · Is accumulation faster? Time one update of 32 samples split three ways':
        'GA-2 · Birikim daha mı hızlı? 32 örneklik bir güncellemeyi üç şekilde bölüp süresini ölçün',
    'KiB / update':
        'KiB / güncelleme',
    'KiB kept by the checkpointed layers':
        'kontrol noktalı katmanların sakladığı KiB',
    'KiB kept for backward':
        'geri geçiş için saklanan KiB',
    'KiB kept on {device}':
        '{device} üzerinde saklanan KiB',
    'KiB sent per update (per replica)':
        'güncelleme başına gönderilen KiB (replika başına)',
    'MB-7 · Check the sample ids each replica processed':
        'MB-7 · Her replikanın işlediği örnek kimliklerini denetleyin',
    'MB-7 · D real processes: which loss scaling gives the single-process big-batch gradient?':
        'MB-7 · D gerçek süreç: hangi kayıp ölçeklemesi tek süreçli büyük yığının gradyanını verir?',
    'MB-7 · no_sync: communicate once per update instead of once per microbatch':
        'MB-7 · no_sync: her mikro yığında değil, her güncellemede bir kez iletişim',
    'MB-8 · Changing the global batch changes the number of updates per epoch':
        'MB-8 · Genel yığını değiştirmek dönem başına güncelleme sayısını değiştirir',
    "MB-8 · Does A microbatches of m give the big batch's gradient? It depends on the layers.":
        'MB-8 · m boyutunda A mikro yığın büyük yığının gradyanını verir mi? Katmanlara bağlı.',
    'MB-8 · Same samples, same maths, different order of additions: the size of the difference':
        'MB-8 · Aynı örnekler, aynı matematik, farklı toplama sırası: farkın büyüklüğü',
    'MB-9 · A forward that fits proves nothing: watch a whole group, the first update, then the next groups':
        'MB-9 · Sığan bir ileri geçiş hiçbir şey kanıtlamaz: bütün bir grubu, ilk güncellemeyi, sonra sonraki grupları izleyin',
    'MB-9 · Counters keep their device: one probe per device':
        'MB-9 · Sayaçlar kendi cihazlarına aittir: her cihaza bir ölçer',
    'MB-9 · The planner: the largest m whose measured peak fits, with A = target ÷ (m × D)':
        'MB-9 · Planlayıcı: ölçülen tepesi sığan en büyük m, A = hedef ÷ (m × D) ile',
    'MiB above start ({probe})':
        'başlangıcın üstünde MiB ({probe})',
    'MiB kept for backward (one microbatch)':
        'geri geçiş için saklanan MiB (bir mikro yığın)',
    'MiB kept for backward per microbatch':
        'mikro yığın başına geri geçiş için saklanan MiB',
    'MiB saved for backward':
        'geri geçiş için saklanan MiB',
    'MiB saved for backward, per microbatch':
        'geri geçiş için saklanan MiB, mikro yığın başına',
    'N samples':
        'N örnek',
    "No microbatch size fits: even m={m} (A={A}) peaks at {peak} over the budget of {budget}, while the fixed part is {fixed}. One sample's activations are too large: enable activation checkpointing (every_n_layers), offload, or use shorter sequences.":
        'Hiçbir mikro yığın boyutu sığmıyor: m={m} (A={A}) bile {peak} tepe yaparak {budget} bütçesini aşıyor; sabit kısım ise {fixed}. Tek bir örneğin aktivasyonları fazla büyük: aktivasyon kontrol noktasını (every_n_layers) ya da boşaltmayı açın veya daha kısa diziler kullanın.',
    'No microbatch size fits: weights, gradients and optimizer state alone take {fixed}, over the budget of {budget}. Accumulation cannot help — it only shrinks activations. Shrink the fixed part: a smaller model, an optimizer with less state (SGD, 8-bit), lower-precision weights, or shard them across devices.':
        'Hiçbir mikro yığın boyutu sığmıyor: yalnızca ağırlıklar, gradyanlar ve optimize edici durumu {fixed} tutuyor ve {budget} bütçesini aşıyor. Birikim burada yardım edemez — yalnızca aktivasyonları küçültür. Sabit kısmı küçültün: daha küçük bir model, daha az durum tutan bir optimize edici (SGD, 8 bit), daha düşük duyarlıklı ağırlıklar ya da bunları cihazlara parçalamak.',
    'On the CPU offload has nothing to move.':
        'CPU üzerinde boşaltmanın taşıyacağı bir şey yoktur.',
    "On this CPU-only machine the activations already live in host memory: offload has nothing to move, so the bytes kept are the same with and without it (measured above). On a GPU, offload moves each checkpointed layer's input to pinned host memory during the forward (device → host copy) and back during the backward (host → device), on the compute stream: the device keeps almost nothing, and every update pays two copies. Run this notebook on a GPU machine to see the device peak drop and the time rise.":
        "Yalnızca CPU olan bu makinede aktivasyonlar zaten ana bellekte durur: boşaltmanın taşıyacağı bir şey yoktur, bu yüzden saklanan baytlar boşaltmayla da boşaltmasız da aynıdır (yukarıda ölçüldü). Bir GPU'da boşaltma, kontrol noktalı her katmanın girdisini ileri geçişte sabitlenmiş ana belleğe taşır (cihazdan ana belleğe kopya) ve geri geçişte geri getirir (ana bellekten cihaza), hesaplama akışı üzerinde: cihaz neredeyse hiçbir şey tutmaz ve her güncelleme iki kopyanın bedelini öder. Cihaz tepesinin düştüğünü ve sürenin arttığını görmek için bu defteri GPU'lu bir makinede çalıştırın.",
    'Steady state (later groups) peaks at {peak}.':
        'Kararlı durum (sonraki gruplar) {peak} tepe yapar.',
    'The next larger m={m} peaked at {peak}.':
        'Bir sonraki büyük m={m} {peak} tepe yaptı.',
    'Weights, gradients and optimizer state are {share} of this peak, so shrinking m further barely helps (m={m} peaks at {peak}).':
        "Ağırlıklar, gradyanlar ve optimize edici durumu bu tepenin {share} kadarıdır; bu yüzden m'yi daha da küçültmek pek işe yaramaz (m={m} {peak} tepe yapar).",
    'accumulation':
        'birikim',
    'all-reduce calls per update':
        'güncelleme başına all-reduce çağrısı',
    'answer with a list of layer numbers, e.g. [1, 2], got {answer}':
        'katman numaralarından oluşan bir listeyle yanıt verin, ör. [1, 2]; gelen: {answer}',
    'answer with a list of microbatch sizes, got {answer}':
        'mikro yığın boyutlarından oluşan bir listeyle yanıt verin; gelen: {answer}',
    'answer with a number of bytes, got {answer}':
        'bir bayt sayısıyla yanıt verin; gelen: {answer}',
    'answer with a number of epochs, got {answer}':
        'bir dönem sayısıyla yanıt verin; gelen: {answer}',
    'answer with a pair (calls with no_sync, calls without), got {answer}':
        'bir çiftle yanıt verin (no_sync ile çağrılar, no_sync olmadan çağrılar); gelen: {answer}',
    'answer with a whole number of tokens, got {answer}':
        'tam sayı olarak bir token sayısıyla yanıt verin; gelen: {answer}',
    'answer with a whole number of updates, got {answer}':
        'tam sayı olarak bir güncelleme sayısıyla yanıt verin; gelen: {answer}',
    'answer with the microbatch size m (an int), got {answer}':
        'mikro yığın boyutu m ile (bir tam sayı) yanıt verin; gelen: {answer}',
    'at m = {m} the measured gap is {gap}; measure the others with bn_gap(m, 32 // m).':
        'm = {m} için ölçülen fark {gap}; diğerlerini bn_gap(m, 32 // m) ile ölçün.',
    'backward':
        'geri',
    'backward {at}':
        'geri {at}',
    'baseline':
        'taban',
    'best ms':
        'en iyi ms',
    'best of the repeats':
        'tekrarların en iyisi',
    'best s / update':
        'en iyi sn / güncelleme',
    'both':
        'ikisi birden',
    'budget':
        'bütçe',
    'budget MiB':
        'bütçe MiB',
    'bytes':
        'bayt',
    'calls / update':
        'çağrı / güncelleme',
    'checkpoint every layer':
        'her katmanda kontrol noktası',
    'checkpointed: keeps its input only':
        'kontrol noktalı: yalnızca girdisini saklar',
    'checkpointing':
        'kontrol noktası',
    'checkpointing + offload':
        'kontrol noktası + boşaltma',
    'choice':
        'seçenek',
    'count the updates of one epoch in each setting (count_updates) and divide; got {answer}':
        'her ayarda bir dönemin güncellemelerini sayın (count_updates) ve bölün; gelen: {answer}',
    'current − start':
        'şimdiki − başlangıç',
    'device':
        'cihaz',
    'device peak':
        'cihaz tepesi',
    'every_n_layers = {n}: checkpointed layers {layers}':
        'every_n_layers = {n}: kontrol noktalı katmanlar {layers}',
    'exactly 0 (A = 1)':
        'tam olarak 0 (A = 1)',
    'fits':
        'sığar mı',
    'fixed part':
        'sabit kısım',
    'float32 tolerance':
        'float32 toleransı',
    'formula':
        'formül',
    'forward':
        'ileri',
    'forward {at}':
        'ileri {at}',
    'gap (relative)':
        'fark (göreli)',
    'global batch m × A × D (samples per update)':
        'genel yığın m × A × D (güncelleme başına örnek)',
    'global denominator':
        'genel payda',
    'global denominator: {n} items on every replica; naive: each replica divides by its own count ({counts})':
        'genel payda: her replikada {n} öğe; saf yaklaşım: her replika kendi sayısına böler ({counts})',
    'gradient KiB':
        'gradyan KiB',
    'gradients':
        'gradyanlar',
    'groups':
        'gruplar',
    'hidden':
        'gizli boyut',
    'kept':
        'saklanan',
    'layers':
        'katmanlar',
    'live tensor bytes in the CUDA caching allocator (excludes context and cache)':
        'CUDA önbellekli bellek ayırıcısındaki canlı tensör baytları (bağlam ve önbellek hariç)',
    'm (A = effective ÷ m)':
        'm (A = etkin ÷ m)',
    'm (sequence {T})':
        'm (dizi {T})',
    'm = {m} (gap {gap}); even there BatchNorm does not match the big batch — only m = 32 (no accumulation) does.':
        'm = {m} (fark {gap}); orada bile BatchNorm büyük yığınla eşleşmez — yalnızca m = 32 (birikim yok) eşleşir.',
    'm must divide 32 (2, 4, 8, 16, 32), got {answer}':
        "m 32'yi bölmelidir (2, 4, 8, 16, 32); gelen: {answer}",
    'm × A (same effective batch)':
        'm × A (aynı etkin yığın)',
    'm={m} × A={A} × D={D} = {n} samples per update':
        'm={m} × A={A} × D={D} = güncelleme başına {n} örnek',
    'm={m}, A={A} (m×A×D = {n}) fits: measured peak {peak} ≤ budget {budget}.':
        'm={m}, A={A} (m×A×D = {n}) sığar: ölçülen tepe {peak} ≤ bütçe {budget}.',
    'max |Δw| after {n} updates':
        '{n} güncellemeden sonra en büyük |Δw|',
    'measured':
        'ölçülen',
    'measured current':
        'ölçülen anlık',
    'measured peak':
        'ölçülen tepe',
    'measured peak, MiB':
        'ölçülen tepe, MiB',
    'measured {measured} bytes: 4 bytes × parameters × 4 (weights, gradients, two AdamW moments), plus a few bytes of step counters.':
        'ölçülen {measured} bayt: 4 bayt × parametreler × 4 (ağırlıklar, gradyanlar, iki AdamW momenti), artı adım sayaçları için birkaç bayt.',
    'measured − formula = {extra}; the attention mask (m×T×T bools = {mask}) is one more input, shared by all layers, counted once.':
        'ölçülen − formül = {extra}; dikkat maskesi (m×T×T bool = {mask}) bir girdi daha; tüm katmanlarca paylaşılır, bir kez sayılır.',
    'measures':
        'ölçtüğü',
    'measuring m={m}, A={A} ({i} of {n})':
        'm={m}, A={A} ölçülüyor ({i} / {n})',
    'median':
        'medyan',
    'median ms':
        'medyan ms',
    'model':
        'model',
    'ms per update (best repeat)':
        'güncelleme başına ms (en iyi tekrar)',
    'ms per update (best)':
        'güncelleme başına ms (en iyi)',
    'ms per update of 8 samples (best)':
        '8 örneklik güncelleme başına ms (en iyi)',
    'm×A target':
        'm×A hedefi',
    'n = 2 checkpoints only some of the 4 layers: which ones?':
        'n = 2, 4 katmanın yalnızca bazılarına kontrol noktası koyar: hangilerine?',
    'naive local mean':
        'saf yerel ortalama',
    'no':
        'hayır',
    'no checkpointing':
        'kontrol noktası yok',
    'no_sync off':
        'no_sync kapalı',
    'no_sync on':
        'no_sync açık',
    'none':
        'hiçbiri',
    'not checkpointed: keeps everything':
        'kontrol noktasız: her şeyi saklar',
    'note: {note}':
        'not: {note}',
    'now':
        'şimdi',
    'off':
        'kapalı',
    'offload: {measured} left on {device} instead of {expected}; the layer inputs live in pinned host memory until the backward.':
        'boşaltma: {device} üzerinde {expected} yerine {measured} kaldı; katman girdileri geri geçişe kadar sabitlenmiş ana bellekte durur.',
    'one update in {precision}':
        '{precision} ile bir güncelleme',
    'one update: A={A}×m={m} vs one batch':
        'bir güncelleme: A={A}×m={m} / tek yığın',
    'one-update gap':
        'tek güncelleme farkı',
    'optimizer':
        'optimize edici',
    'optimizer state':
        'optimize edici durumu',
    'peak':
        'tepe',
    'peak MiB':
        'tepe MiB',
    'peak − start':
        'tepe − başlangıç',
    'per-phase reset':
        'aşama başına sıfırlama',
    'phase':
        'aşama',
    'plan':
        'plan',
    'preparing configuration {i} of {n}':
        'yapılandırma hazırlanıyor ({i} / {n})',
    'process resident memory; /proc/self/clear_refs is not writable, so the peak is since start':
        'sürecin yerleşik belleği; /proc/self/clear_refs yazılamıyor, bu yüzden tepe başlangıçtan beri ölçülür',
    'process resident memory; peak = VmHWM, reset per phase via /proc/self/clear_refs':
        'sürecin yerleşik belleği; tepe = VmHWM, her aşamada /proc/self/clear_refs ile sıfırlanır',
    'refused with DuplicateSamplesError: {message}':
        'DuplicateSamplesError ile reddedildi: {message}',
    'relative gap to the big batch':
        'büyük yığına göre göreli fark',
    'relative gradient gap':
        'göreli gradyan farkı',
    'repeats':
        'tekrarlar',
    'replica':
        'replika',
    'rerun':
        'yeniden',
    'running the update on {D} processes':
        'güncelleme {D} süreçte çalışıyor',
    'sample ids of the first update':
        'ilk güncellemenin örnek kimlikleri',
    'samples / s':
        'örnek / sn',
    'samples in the short last group':
        'eksik son gruptaki örnekler',
    'samples/s (best)':
        'örnek/sn (en iyi)',
    'samples/s (median)':
        'örnek/sn (medyan)',
    'saved':
        'saklanan',
    'saved MiB':
        'saklanan MiB',
    'saved activations':
        'saklanan aktivasyonlar',
    'sequence length T (m = {m})':
        'dizi uzunluğu T (m = {m})',
    'sharded':
        'parçalanmış',
    'split':
        'bölme',
    'spread':
        'yayılım',
    'starting {D} worker processes (once per session)':
        '{D} işçi süreci başlatılıyor (oturum başına bir kez)',
    'supervised items per microbatch':
        'mikro yığın başına denetlenen öğe',
    "that drops the short last group; this run keeps it (last_group='keep').":
        "bu, eksik son grubu atar; bu çalıştırma onu tutar (last_group='keep').",
    'that ignores D: each replica takes 48 ÷ 2 samples per update.':
        "bu D'yi yok sayıyor: her replika güncelleme başına 48 ÷ 2 örnek alır.",
    'that is one copy missing: weights, gradients and two moments.':
        'bir kopya eksik: ağırlıklar, gradyanlar ve iki moment.',
    "that is one replica's own count — the naive local mean.":
        'bu, bir replikanın kendi sayısı — saf yerel ortalama.',
    'that is only the weights.':
        'bu yalnızca ağırlıklar.',
    'that is only weights and gradients: AdamW adds two moments per weight.':
        'bu yalnızca ağırlıklar ve gradyanlar: AdamW her ağırlık için iki moment ekler.',
    'that is the measurement including the mask; the question asks for the formula alone.':
        'bu, maske dahil ölçüm; soru yalnızca formülü soruyor.',
    'the first layer is always checkpointed; then every n-th after it.':
        'ilk katmana her zaman kontrol noktası konur; sonra ondan sonraki her n. katmana.',
    'the other way round: no_sync *saves* communication.':
        'tam tersi: no_sync iletişimden *tasarruf* eder.',
    'the trade-off curve: lower-left is better':
        'ödünleşim eğrisi: sol alt daha iyi',
    'this OS gives only the peak since the process started; per-phase peaks are not available':
        'bu işletim sistemi yalnızca süreç başladığından beri olan tepeyi verir; aşama başına tepeler yoktur',
    'those are 0-based indices; the course numbers layers from 1 (L1 … L12).':
        "bunlar 0'dan başlayan indisler; kurs katmanları 1'den numaralar (L1 … L12).",
    'throughput: higher is faster':
        'verim: yüksek olan daha hızlı',
    'timing, round {i} of {n}':
        'süre ölçümü, tur {i} / {n}',
    'tokens/s (median)':
        'token/sn (medyan)',
    'total':
        'toplam',
    'unit':
        'birim',
    'unsharded':
        'parçalanmamış',
    'update applied':
        'güncelleme uygulandı',
    'update {at}':
        'güncelleme {at}',
    'update {i} of {n} measured':
        '{n} güncellemeden {i}. ölçüldü',
    'updates / epoch (counted)':
        'güncelleme / dönem (sayılan)',
    'updates per epoch':
        'dönem başına güncelleme',
    'verifier':
        'doğrulayıcı',
    'warm-up update':
        'ısınma güncellemesi',
    'weights':
        'ağırlıklar',
    'weights + gradients + optimizer state':
        'ağırlıklar + gradyanlar + optimize edici durumu',
    'what accumulation buys: memory':
        'birikimin kazandırdığı: bellek',
    'with':
        'ile',
    'without':
        'olmadan',
    'without checkpointing':
        'kontrol noktası olmadan',
    'yes':
        'evet',
    '{answer} is not it: how many samples does one update take (m × A × D)?':
        '{answer} değil: bir güncelleme kaç örnek alır (m × A × D)?',
    '{answer} is not it: which m divide the per-replica share 48 ÷ D?':
        '{answer} değil: hangi m değerleri replika başına payı (48 ÷ D) böler?',
    "{answer} is not it; add up the replicas' counts {items}":
        '{answer} değil; replikaların sayılarını toplayın: {items}',
    '{answer} is not it; try layer_selection(12, 3)':
        '{answer} değil; layer_selection(12, 3) deneyin',
    "{answer} is not the formula's value; count the checkpointed layers first.":
        '{answer} formülün değeri değil; önce kontrol noktalı katmanları sayın.',
    '{answer} is not what was measured; run count_with_and_without(2, 6)':
        '{answer} ölçülen değer değil; count_with_and_without(2, 6) çalıştırın',
    '{answer} is {ratio}× the measured fixed part':
        '{answer}, ölçülen sabit kısmın {ratio} katı',
    '{before} updates before, {per_epoch} per epoch now → {epochs} epochs: twice the samples for the same number of updates. Write that assumption down.':
        'önce {before} güncelleme, şimdi dönem başına {per_epoch} → {epochs} dönem: aynı sayıda güncelleme için iki kat örnek. Bu varsayımı not edin.',
    '{data}: {distinct} distinct ids over {total} samples, {duplicated} on more than one replica':
        '{data}: {total} örnekte {distinct} farklı kimlik, {duplicated} tanesi birden fazla replikada',
    '{layers} checkpointed layers × m={m} × T={T} × hidden={hidden} × {bytes} bytes = {formula}; measured {measured} (ratio {ratio}).':
        '{layers} kontrol noktalı katman × m={m} × T={T} × hidden={hidden} × {bytes} bayt = {formula}; ölçülen {measured} (oran {ratio}).',
    '{layers} layers × 8 × 64 × 128 × 4 = {formula} bytes; measured {measured} = formula + the {mask}-byte mask.':
        '{layers} katman × 8 × 64 × 128 × 4 = {formula} bayt; ölçülen {measured} = formül + {mask} baytlık maske.',
    '{layers}: the first layer and every third after it.':
        '{layers}: ilk katman ve ondan sonra her üçüncü katman.',
    '{model}: one update against the big batch':
        '{model}: büyük yığına karşı bir güncelleme',
    '{n} updates: ceil(1000 ÷ 48), the last one with a short group.':
        '{n} güncelleme: ceil(1000 ÷ 48), sonuncusu eksik bir grupla.',
    '{on} and {off}: without no_sync every one of the 6 backwards communicates.':
        '{on} ve {off}: no_sync olmadan 6 geri geçişin her biri iletişim kurar.',
    '{sizes}: every divisor of 48 ÷ 2 = 24, so m × A × 2 = 48 exactly.':
        "{sizes}: 48 ÷ 2 = 24'ün her böleni, böylece m × A × 2 = 48 tam olarak.",
    "{sum} = {answer}: every replica divides by the whole group's count.":
        '{sum} = {answer}: her replika bütün grubun sayısına böler.',
    '{updates} updates trained both ways in {precision}':
        '{precision} ile iki yoldan {updates} güncelleme eğitildi',
}
