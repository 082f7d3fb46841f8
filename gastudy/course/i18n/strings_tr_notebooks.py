"""The course notebooks' check claims and printed sentences in tr: English text (the
``t("…")`` calls in the English notebooks' code cells) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    '\nloss per update (nats):':
        '\ngüncelleme başına kayıp (nat):',
    '  ← -100 = no target (the prompt)':
        '  ← -100 = hedef yok (istem kısmı)',
    '16 microbatches of 1 are slower than one batch of 16':
        "1'lik 16 mikro yığın, 16'lık tek bir yığından daha yavaş",
    '16× the global batch → {updates} vs {updates2} updates for the same samples':
        '16 kat global yığın → aynı örnekler için {updates} yerine {updates2} güncelleme',
    '32 microbatches of 1 are slower than one batch of 32':
        "1'lik 32 mikro yığın, 32'lik tek bir yığından daha yavaş",
    '8× the samples → {value:.2f}× the bytes (linear in m)':
        "8 kat örnek → {value:.2f} kat bayt (m'de doğrusal)",
    'AdamW: they move {adamw:.2f}× as far — the factor mostly cancels, eps takes the rest':
        'AdamW: ağırlıklar {adamw:.2f} kat uzağa gider — çarpan büyük ölçüde sadeleşir, gerisini eps alır',
    'AdamW: they move {adamw:.4f}× as far — its per-coordinate scaling cancels the constant factor':
        'AdamW: ağırlıklar {adamw:.4f} kat uzağa gider — koordinat başına ölçeklemesi sabit çarpanı sadeleştirir',
    'BatchNorm does not: its gap is {bn_mlp:.3g}, far above float32 rounding':
        'BatchNorm eşleşmez: farkı {bn_mlp:.3g}, float32 yuvarlamasının çok üstünde',
    'BatchNorm fails, and the verdict names it':
        'BatchNorm başarısız olur ve karar bunu adıyla söyler',
    'BatchNorm with the whole batch in one microbatch (A = 1) matches exactly':
        'Tüm yığın tek bir mikro yığındayken (A = 1) BatchNorm tam olarak eşleşir',
    'D=2 passes against the single-process big batch of {samples} samples, per replica {per_replica}':
        'D=2, tek süreçli {samples} örneklik büyük yığına karşı geçer; replika başına {per_replica}',
    'G1+…+G{accumulation_steps} equals the gradient of one batch of {value} in {dtype} (relative gap {max_rel_diff:.1e} ≤ {tolerance:g})':
        'G1+…+G{accumulation_steps}, {dtype} içinde {value} örneklik tek bir yığının gradyanına eşittir (göreli fark {max_rel_diff:.1e} ≤ {tolerance:g})',
    'LayerNorm and no-norm MLPs match the big batch (relative gaps {ln_mlp:.1e}, {mlp:.1e})':
        "LayerNorm'lu ve normalleştirmesiz MLP'ler büyük yığınla eşleşir (göreli farklar {ln_mlp:.1e}, {mlp:.1e})",
    'SGD with gradients ÷ 65,536: the weights move {sgd:.1e}× as far — it stops learning':
        'Gradyanlar ÷ 65,536 ile SGD: ağırlıklar {sgd:.1e} kat uzağa gider — öğrenme durur',
    'SGD: the weights move {sgd:.3f}× as far — the learning rate was in effect cut by 4':
        "SGD: ağırlıklar {sgd:.3f} kat uzağa gider — öğrenme oranı fiilen 4'e bölünmüş olur",
    "Trainer(m={m}, A={A}) applies the gradient gastudy's engine computes (tokens)":
        'Trainer(m={m}, A={A}), gastudy motorunun hesapladığı gradyanı uygular (tokens)',
    "Transformers' offload runs where pinned memory exists; without an accelerator it fails, gastudy does not":
        "Transformers'ın boşaltması (offload) sabitlenmiş belleğin olduğu yerde çalışır; hızlandırıcı yoksa başarısız olur, gastudy olmaz",
    'Transformers, offload=True ({value}): {hf_offload}':
        'Transformers, offload=True ({value}): {hf_offload}',
    'a checkpointed layer keeps less than any layer without checkpointing':
        'checkpointing uygulanan bir katman, checkpointing uygulanmayan her katmandan daha az tutar',
    'a classifier has one target per sample':
        'bir sınıflandırıcının örnek başına bir hedefi vardır',
    'a constant divisor A under-weights the short group by size/A':
        'sabit A paydası eksik grubun ağırlığını boyut/A oranında düşürür',
    "a forward-only check ({value:.1f} MiB) misses the group's peak ({value2:.1f} MiB)":
        'yalnızca ileri geçişe bakan bir kontrol ({value:.1f} MiB) grubun tepe değerini ({value2:.1f} MiB) kaçırır',
    'a mean-of-means update misses the big-batch gradient by {value:.1f}%; tokens by {tokens_gap:.0e}':
        'ortalamaların ortalaması ile yapılan güncelleme büyük yığın gradyanını %{value:.1f} kaçırır; tokens ise {tokens_gap:.0e} kadar',
    "a per-microbatch mean ÷ gradient_accumulation_steps = gastudy's steps, not the big batch":
        "mikro yığın başına ortalama ÷ gradient_accumulation_steps = gastudy'nin steps'i, büyük yığın değil",
    'a short last group is recorded with the samples it affected':
        'eksik son grup, etkilediği örneklerle birlikte kaydedilir',
    'accumulate() stepped the optimizer once for {A} microbatches':
        'accumulate() optimize ediciyi {A} mikro yığın için bir kez adımlattı',
    'activations shrink about 8×; weights, gradients and optimizer state do not change':
        'aktivasyonlar yaklaşık 8 kat küçülür; ağırlıklar, gradyanlar ve optimize edici durumu değişmez',
    'after the fix the detector is quiet':
        'düzeltmeden sonra dedektör sessiz kalır',
    'after training, float32 weights drift further apart than float64 weights':
        'eğitimden sonra float32 ağırlıkları, float64 ağırlıklarından daha fazla birbirinden uzaklaşır',
    "after {groups} updates the weights equal the engine's (relative gap {gap:.1e} ≤ 1e-5)":
        '{groups} güncellemeden sonra ağırlıklar motorunkilere eşittir (göreli fark {gap:.1e} ≤ 1e-5)',
    'all {checks} checks hold':
        '{checks} kontrolün hepsi geçerli',
    'all {found} glossary terms name real library objects':
        'sözlükteki {found} terimin hepsi kütüphanedeki gerçek nesneleri adlandırır',
    'all {rows} pitfalls are caught and all {rows} fixes pass':
        '{rows} tuzağın hepsi yakalanır ve {rows} düzeltmenin hepsi geçer',
    'and none of them entered any update':
        've hiçbiri herhangi bir güncellemeye girmedi',
    'and on counts {counts} the two gradients differ by {value:.1f}%':
        've {counts} sayımlarında iki gradyan %{value:.1f} farklıdır',
    'and ran the same number of microbatches':
        've aynı sayıda mikro yığın çalıştırdı',
    'and so is the logged loss':
        'günlüğe yazılan kayıp da öyle',
    'and the same weights after three groups':
        've üç gruptan sonra ağırlıklar aynı',
    'and the scale was halved ({scale_used:g} → {scale_after:g})':
        've ölçek yarıya indirildi ({scale_used:g} → {scale_after:g})',
    'args.activation_checkpointing = {activation_checkpointing}, kwargs = {activation_checkpointing_kwargs}':
        'args.activation_checkpointing = {activation_checkpointing}, kwargs = {activation_checkpointing_kwargs}',
    "at 'step' {k}: run 1 had seen {value} samples, run 2 {value2}":
        "{k}. 'adımda': 1. çalıştırma {value} örnek görmüştü, 2. çalıştırma {value2}",
    'attempted = applied = scheduler steps (fp32: nothing skipped)':
        'denenen = uygulanan = zamanlayıcı adımları (fp32: hiçbiri atlanmadı)',
    'autocast on the CPU really computes in float16 / bfloat16':
        "CPU'da autocast gerçekten float16 / bfloat16 ile hesaplar",
    'bf16 autocast: {bf16:.1e}, hence its looser tolerance':
        'bf16 autocast: {bf16:.1e}, bu yüzden toleransı daha gevşek',
    'both runs saw the same {value} samples':
        'iki çalıştırma da aynı {value} örneği gördü',
    'but run 1 made {value} updates and run 2 only {value2} (A = {A}×fewer)':
        'ama 1. çalıştırma {value} güncelleme yaptı, 2. çalıştırma ise yalnızca {value2} (A = {A} kat daha az)',
    'by hand and by the library: {total:,} bytes kept, the same to the byte (without: {total2:,})':
        'elle ve kütüphaneyle: {total:,} bayt tutuluyor, bayt bayt aynı (checkpointing olmadan: {total2:,})',
    "by the last microbatch {value:.1f} microbatches' activations are alive (A = {A})":
        'son mikro yığına gelindiğinde {value:.1f} mikro yığının aktivasyonları hâlâ bellekte (A = {A})',
    'bytes = {per_token:,.0f}·T + {per_token_squared:,.0f}·T² {constant:+,.0f}, exactly: linear and quadratic in T':
        "bayt = {per_token:,.0f}·T + {per_token_squared:,.0f}·T² {constant:+,.0f}, tam olarak: T'de doğrusal ve karesel",
    'bytes kept: n=1 < n=2 < n=3 < n=4 < off':
        'tutulan bayt: n=1 < n=2 < n=3 < n=4 < kapalı',
    'checkpointing every layer keeps less than 15 % of the bytes, at every m and T':
        "her katmanda checkpointing, her m ve T için baytların %15'inden azını tutar",
    'checkpointing every layer: {ratio:.2f}× the time of no checkpointing — not faster beyond the 5 % noise margin':
        "her katmanda checkpointing: checkpointing olmayan sürenin {ratio:.2f} katı — %5'lik gürültü payının ötesinde daha hızlı değil",
    'checkpointing keeps the gradient; accumulation keeps it within rounding, except with BatchNorm':
        'checkpointing gradyanı korur; birikim de yuvarlama sınırları içinde korur, BatchNorm dışında',
    'checkpointing leaves the gradient unchanged':
        'checkpointing gradyanı değiştirmez',
    'clip → unscale: it gets max_norm / scale':
        'kırp → ölçeği geri al: max_norm / ölçek elde edilir',
    "compute_loss: summed loss ÷ num_items_in_batch = gastudy's tokens":
        "compute_loss: toplam kayıp ÷ num_items_in_batch = gastudy'nin tokens'ı",
    'counted updates = the formula, for every global batch':
        'sayılan güncellemeler = formül, her global yığın için',
    'declared False, the detector fires':
        'False bildirilince dedektör tetiklenir',
    'declared True, the update equals the big batch':
        'True bildirilince güncelleme büyük yığına eşittir',
    'decoded  :':
        'çözülmüş :',
    'doubling A halves the updates per epoch':
        "A'yı iki katına çıkarmak epoch başına güncellemeleri yarıya indirir",
    'drop: the {sample_ids} recorded samples {sample_ids2} were not trained':
        'drop: kaydedilen {sample_ids} örnek {sample_ids2} eğitilmedi',
    'each choice keeps less than none, and both together keep the least':
        'her seçenek hiçbir şey yapmamaktan daha az tutar, ikisi birlikte en azını tutar',
    'each of the 2 replicas processes 16 of them':
        "2 replikanın her biri bunların 16'sını işler",
    'each saves memory, and they combine':
        'her biri bellek kazandırır ve birleştirilebilirler',
    "each update used the engine's learning rate {lrs}":
        'her güncelleme motorun öğrenme oranını kullandı: {lrs}',
    'every candidate keeps m × A × D on target':
        "her aday m × A × D'yi hedefte tutar",
    'every full update holds m·A = {effective_batch} samples':
        'her tam güncelleme m·A = {effective_batch} örnek içerir',
    "every group's denominator was known before any forward":
        'her grubun paydası, herhangi bir ileri geçişten önce biliniyordu',
    'every sample appears in exactly one update':
        'her örnek tam olarak bir güncellemede yer alır',
    'every section is mapped to a chapter of the course':
        'her bölüm kursun bir bölümüne eşlenmiştir',
    'every split processes {target} samples per update':
        'her bölünme güncelleme başına {target} örnek işler',
    'every_n_layers=2 checkpoints blocks 1 and 3, the ones chosen by hand':
        "every_n_layers=2, elle seçilenlerle aynı blokları (1 ve 3) checkpoint'ler",
    'expected from the recomputation: about 1.2–1.35× on an idle machine; a ratio near 1 means the update is dominated by something else (Python overhead on a tiny model), or that the machine was busy':
        "yeniden hesaplamadan beklenen: boşta bir makinede yaklaşık 1.2–1.35 kat; 1'e yakın bir oran, güncellemeye başka bir şeyin (küçük bir modelde Python yükü) hâkim olduğu ya da makinenin meşgul olduğu anlamına gelir",
    'fastest here: m={m}, A={A} ({ms_per_update:.1f} ms per update)':
        'burada en hızlısı: m={m}, A={A} (güncelleme başına {ms_per_update:.1f} ms)',
    "float32: {fp32:.1e}, within the verifier's tolerance of 1e-4":
        'float32: {fp32:.1e}, doğrulayıcının 1e-4 toleransı içinde',
    'float64: the split changes the gradient by {fp64:.1e} (relative)':
        'float64: bölünme gradyanı {fp64:.1e} (göreli) değiştirir',
    'for a CPU tensor, .cpu() returns the very same tensor: save_on_cpu(pin_memory=False) copies nothing':
        'bir CPU tensörü için .cpu() aynı tensörü döndürür: save_on_cpu(pin_memory=False) hiçbir şey kopyalamaz',
    'forgetting zero_grad is invisible in the first update and wrong from the second on':
        "zero_grad'ı unutmak ilk güncellemede görünmez, ikinciden itibaren yanlıştır",
    'fp16 uses a gradient scaler, bf16 does not':
        'fp16 bir gradyan ölçekleyici kullanır, bf16 kullanmaz',
    'gastudy, offload=True: ran. {note}':
        'gastudy, offload=True: çalıştı. {note}',
    'gradients appear at the first backward':
        'gradyanlar ilk geri geçişte ortaya çıkar',
    'in every held-out group (mean gap {value:.1f}%), while the loss differs by {mean_abs_bias:.2g} nats':
        'ayrılmış her grupta (ortalama fark %{value:.1f}), kayıp ise yalnızca {mean_abs_bias:.2g} nat farklı',
    'in float32 the accumulated gradient matches within {tolerance:g} (measured {max_rel_diff:.1e})':
        "float32'de biriken gradyan {tolerance:g} içinde eşleşir (ölçülen {max_rel_diff:.1e})",
    'ipywidgets and matplotlib are installed (the labs need both)':
        'ipywidgets ve matplotlib kurulu (laboratuvarların ikisine de ihtiyacı var)',
    'keep adds one short update; drop skips its 6 samples, and both are recorded':
        'keep bir eksik güncelleme ekler; drop 6 örneğini atlar ve ikisi de kaydedilir',
    'keep: all {dataset_size} samples were trained, the short group included':
        'keep: {dataset_size} örneğin hepsi eğitildi, eksik grup dahil',
    'later groups run with the smaller scale':
        'sonraki gruplar daha küçük ölçekle çalışır',
    'learning rate per update:':
        'güncelleme başına öğrenme oranı:',
    'loss_is_scaled_for_ga = False: the gradient is A = {A}× too small':
        'loss_is_scaled_for_ga = False: gradyan tam A = {A} kat küçük',
    "loss_is_scaled_for_ga = True: the Trainer's update equals gastudy's":
        "loss_is_scaled_for_ga = True: Trainer'ın güncellemesi gastudy'ninkine eşit",
    'lr per update {lrs}, scale used {used}, applied {applied}':
        'güncelleme başına lr {lrs}, kullanılan ölçek {used}, uygulanan {applied}',
    'm=1 still peaks at {value:.0%} of m={micro_batch}: the peak does not shrink in proportion':
        'm=1 yine de m={micro_batch} değerinin {value:.0%} kadarında tepe yapar: tepe orantılı küçülmez',
    'm=2, A=8, D=2 → 32 distinct samples per update (counted)':
        'm=2, A=8, D=2 → güncelleme başına 32 farklı örnek (sayıldı)',
    'measured = formula + the shared mask, to the byte ({measured_bytes:,} = {formula_bytes:,} + {mask_bytes:,})':
        'ölçülen = formül + paylaşılan maske, bayt bayt ({measured_bytes:,} = {formula_bytes:,} + {mask_bytes:,})',
    'microbatch {value}: {error}':
        'mikro yığın {value}: {error}',
    'missing: {terms}':
        'eksik: {terms}',
    'multiplying by every device would wrongly claim {naive_count}':
        'her cihazla çarpmak yanlışlıkla {naive_count} iddia ederdi',
    'n = 2 on 6 layers → layers 1, 3, 5':
        '6 katmanda n = 2 → katman 1, 3, 5',
    'n={every_n_layers}: the model checkpoints layers {checkpointed}':
        "n={every_n_layers}: model {checkpointed} katmanlarını checkpoint'ler",
    'n={n}: both checkpoint layers {hf_layers} and keep {hf_kept:,} bytes for backward':
        "n={n}: ikisi de {hf_layers} katmanlarını checkpoint'ler ve geri geçiş için {hf_kept:,} bayt tutar",
    'no accumulated split beats the real batch by more than measurement noise (30 %)':
        'birikimli hiçbir bölünme gerçek yığını ölçüm gürültüsünden (%30) fazla geçmez',
    'no m fits: the fixed part alone exceeds the budget':
        'hiçbir m sığmaz: sabit kısım tek başına bütçeyi aşıyor',
    'no optimizer state before the first update':
        'ilk güncellemeden önce optimize edici durumu yok',
    'offload changes where the inputs wait, not the gradient: identical by hand, in the library and without offload':
        'boşaltma girdilerin nerede beklediğini değiştirir, gradyanı değil: elle, kütüphanede ve boşaltmasız aynı',
    'offload on {device}: {kept_plain:,} bytes kept without it, {kept_offload:,} with it':
        '{device} üzerinde boşaltma: boşaltmasız {kept_plain:,} bayt tutuluyor, boşaltmayla {kept_offload:,}',
    'on a full group steps and mean are the same computation (‖g_steps‖ ÷ ‖g_mean‖ = 1)':
        'tam bir grupta steps ve mean aynı hesaplamadır (‖g_steps‖ ÷ ‖g_mean‖ = 1)',
    'on a short group of 3 with A = 4, steps gives 3/4 of mean: it still divides by A':
        "A = 4 iken 3'lük eksik bir grupta steps, mean'in 3/4'ünü verir: yine de A'ya böler",
    'on the CPU offload moves nothing: the same bytes':
        "CPU'da boşaltma hiçbir şey taşımaz: baytlar aynı",
    'on the CPU the library leaves offload off: nothing to move':
        "CPU'da kütüphane boşaltmayı kapalı bırakır: taşınacak bir şey yok",
    'on the GPU offload leaves almost nothing on the device':
        "GPU'da boşaltma cihazda neredeyse hiçbir şey bırakmaz",
    "on the GPU, by hand and in the library, the device no longer keeps the blocks' {inputs:,} input bytes":
        "GPU'da, elle de kütüphanede de, cihaz artık blokların {inputs:,} baytlık girdilerini tutmuyor",
    'one batch of 32 keeps about 4× the activations of a microbatch of 8 (measured {ratio:.2f}×)':
        "32'lik tek bir yığın, 8'lik bir mikro yığının yaklaşık 4 katı aktivasyon tutar (ölçülen {ratio:.2f} kat)",
    'one probe per device: the CPU and every GPU present':
        'cihaz başına bir ölçer: CPU ve mevcut her GPU',
    'one scale for the whole group: {value:g} for all {scales} microbatches':
        'tüm grup için tek bir ölçek: {scales} mikro yığının hepsinde {value:g}',
    'one skipped update: attempted ≠ applied, the scale halves, the scheduler follows the applied updates':
        'atlanan bir güncelleme: denenen ≠ uygulanan, ölçek yarıya iner, zamanlayıcı uygulanan güncellemeleri izler',
    'optimizer state appears only at the first update (and never with plain SGD)':
        "optimize edici durumu yalnızca ilk güncellemede ortaya çıkar (düz SGD'de hiç çıkmaz)",
    'per microbatch: {wrong_steps} scheduler steps for {applied} updates':
        'mikro yığın başına: {applied} güncelleme için {wrong_steps} zamanlayıcı adımı',
    "plain mean of means = gastudy's mean normalization (within 1e-6)":
        "düz ortalamaların ortalaması = gastudy'nin mean normalleştirmesi (1e-6 içinde)",
    "plain Σ loss_sum ÷ group items = gastudy's tokens normalization (within 1e-6)":
        "düz Σ loss_sum ÷ grubun öğeleri = gastudy'nin tokens normalleştirmesi (1e-6 içinde)",
    'questions:':
        'sorular:',
    'save_on_cpu took over exactly the {inputs:,} bytes the checkpointed blocks keep — still in the same host memory':
        "save_on_cpu, checkpoint'lenen blokların tuttuğu {inputs:,} baytı tam olarak devraldı — hâlâ aynı ana bellekte",
    "scale used by each microbatch's backward:":
        'her mikro yığının geri geçişinde kullanılan ölçek:',
    'shift_labels of a packed batch count the same {right} items as the padded batch':
        "paketlenmiş bir yığının shift_labels'ı, dolgulu yığınla aynı {right} öğeyi sayar",
    'shifting masked-LM labels would drop targets ({wrong} instead of {right})':
        'masked LM etiketlerini kaydırmak hedef kaybettirirdi ({right} yerine {wrong})',
    'size of the error: the denominator is {value:.1f}% too large, so the loss reads {loss_wrong:.4f} instead of {loss_right:.4f}':
        'hatanın büyüklüğü: payda %{value:.1f} fazla büyük, bu yüzden kayıp {loss_right:.4f} yerine {loss_wrong:.4f} okunuyor',
    'so 8× the sequence → {ratio:.2f}× the bytes: more than 8× because of the T² part':
        'yani 8 kat dizi → {ratio:.2f} kat bayt: T² kısmı yüzünden 8 kattan fazla',
    'split-independent models match the big batch; BatchNorm does not':
        'bölünmeden bağımsız modeller büyük yığınla eşleşir; BatchNorm eşleşmez',
    "stepping per microbatch puts update k at the schedule's step (k+1)·A: {accumulation_steps}× too fast":
        'mikro yığın başına adımlamak k. güncellemeyi takvimin (k+1)·A adımına koyar: {accumulation_steps} kat fazla hızlı',
    'steps normalization does not on variable-length data (gap {steps:.3g}, items {items})':
        'steps normalleştirmesi değişken uzunluklu veride eşleşmez (fark {steps:.3g}, öğeler {items})',
    "summed loss ÷ the group's items × A = gastudy's tokens (the big-batch gradient)":
        "toplam kayıp ÷ grubun öğeleri × A = gastudy'nin tokens'ı (büyük yığın gradyanı)",
    'supervised items per microbatch:':
        'mikro yığın başına denetlenen öğeler:',
    'supervised items:':
        'denetlenen öğeler:',
    'tensor-parallel GPUs are not replicas':
        "tensör paralel GPU'lar replika değildir",
    "the Trainer's checkpointed update = gastudy's un-checkpointed one: {cmp}":
        "Trainer'ın checkpoint'li güncellemesi = gastudy'nin checkpoint'siz güncellemesi: {cmp}",
    'the T² part is the attention mask: m × T × T float32 values (4 bytes) in each layer':
        'T² kısmı dikkat maskesidir: her katmanda m × T × T float32 değer (4 bayt)',
    "the chosen plan's measured peak fits the budget: {value}":
        'seçilen planın ölçülen tepe değeri bütçeye sığıyor: {value}',
    "the correct loop holds no microbatch's activations at the next microbatch's start":
        'doğru döngü, bir sonraki mikro yığın başladığında hiçbir mikro yığının aktivasyonlarını tutmaz',
    'the correct loop matches the big batch at every update':
        'doğru döngü her güncellemede büyük yığınla eşleşir',
    "the default answer's numbers support its text":
        'varsayılan cevabın sayıları metnini destekliyor',
    'the detector fires on both zero_grad mistakes':
        'dedektör iki zero_grad hatasında da tetiklenir',
    'the detector names the symptom: {value}…':
        'dedektör belirtiyi adlandırır: {value}…',
    'the detector recovers the unshifted denominator: one extra item per row':
        'dedektör kaydırılmamış paydayı bulur: satır başına bir fazla öğe',
    'the detector stays quiet on the correct loop':
        'dedektör doğru döngüde sessiz kalır',
    'the double-division detector flags the shrunken gradient':
        'çift bölme dedektörü küçülmüş gradyanı işaretler',
    'the engine stepped the scheduler once per update ({updates})':
        'motor zamanlayıcıyı güncelleme başına bir kez adımlattı ({updates})',
    "the engine's update gave the optimizer exactly the replayed gradient":
        'motorun güncellemesi optimize ediciye tam olarak yeniden oynatılan gradyanı verdi',
    "the engine's updates used exactly those denominators {denominators}":
        'motorun güncellemeleri tam olarak şu paydaları kullandı: {denominators}',
    'the five detectors cover the five symptoms':
        'beş dedektör beş belirtiyi kapsar',
    "the fixed part is at least 80 % of every candidate's peak: shrinking m barely helps":
        "sabit kısım her adayın tepe değerinin en az %80'i: m'yi küçültmek pek işe yaramaz",
    'the gradient is exactly A = 4× too small':
        'gradyan tam olarak A = 4 kat küçük',
    "the gradients are identical to the library's, and equal to the un-checkpointed ones within rounding":
        "gradyanlar kütüphanenin hesapladıklarıyla aynı ve checkpointing'siz olanlara yuvarlama içinde eşit",
    'the last group is short: {microbatches} of A = {accumulation_steps} microbatches':
        'son grup eksik: A = {accumulation_steps} mikro yığının {microbatches} tanesi',
    'the map lists all {n} sections':
        'harita {n} bölümün hepsini listeliyor',
    'the mean of means':
        'ortalamaların ortalaması',
    'the mean of means differs from the token-weighted loss (mean |bias| {mean_abs_bias:.2g} nats)':
        'ortalamaların ortalaması token ağırlıklı kayıptan farklıdır (ortalama |sapma| {mean_abs_bias:.2g} nat)',
    'the memory-growth detector fires on kept graph-attached losses':
        'bellek büyümesi dedektörü, graf bağlı tutulan kayıplarda tetiklenir',
    'the microbatch shares of one update sum to 1':
        "bir güncellemenin mikro yığın payları toplamı 1'dir",
    "the model's mean loss through accelerator.backward = gastudy's steps normalization":
        "modelin accelerator.backward'dan geçen ortalama kaybı = gastudy'nin steps normalleştirmesi",
    'the observed peak is recorded':
        'gözlenen tepe değer kaydedilir',
    'the older spelling gradient_checkpointing_enable(...) picks the same layers, with a deprecation warning':
        'eski yazım gradient_checkpointing_enable(...) aynı katmanları seçer, bir kullanımdan kaldırma uyarısıyla',
    'the parameters did not move during the group':
        'parametreler grup boyunca hareket etmedi',
    'the partition-dependence detector fires on the mean-of-means loop':
        'bölünmeye bağımlılık dedektörü ortalamaların ortalaması döngüsünde tetiklenir',
    "the plain loop hands the optimizer the gradient gastudy's Accumulator computes on the same microbatches (relative gap {gap:.1e} ≤ 1e-6, float32)":
        "düz döngü optimize ediciye, gastudy'nin Accumulator'ının aynı mikro yığınlarda hesapladığı gradyanı verir (göreli fark {gap:.1e} ≤ 1e-6, float32)",
    "the plain scaler loop hands the optimizer gastudy's fp16 gradient (relative gap {gap:.1e} ≤ 1e-6)":
        "düz ölçekleyici döngüsü optimize ediciye gastudy'nin fp16 gradyanını verir (göreli fark {gap:.1e} ≤ 1e-6)",
    'the same learning rates {lrs} (no decay after the skip) and scales {used}':
        'aynı öğrenme oranları {lrs} (atlamadan sonra azalma yok) ve ölçekler {used}',
    'the saved JSON reads back to the same record ({name})':
        'kaydedilen JSON geri okunduğunda aynı kaydı verir ({name})',
    'the savings multiply':
        'kazançlar çarpılır',
    'the schedule-drift detector fires on the per-microbatch loop':
        'takvim kayması dedektörü mikro yığın başına adımlayan döngüde tetiklenir',
    'the scheduler stepped only for applied updates':
        'zamanlayıcı yalnızca uygulanan güncellemelerde adım attı',
    'the weighted mean equals the plain mean over all 2,048 tokens':
        'ağırlıklı ortalama, 2,048 tokenın tamamı üzerindeki düz ortalamaya eşittir',
    'then AdamW keeps 2 tensors per weight':
        'ardından AdamW ağırlık başına 2 tensör tutar',
    'token-weighted mean of the 512/1536 example':
        '512/1536 örneğinin token ağırlıklı ortalaması',
    'tokens normalization equals the big batch (gap {tokens:.1e})':
        'tokens normalleştirmesi büyük yığına eşittir (fark {tokens:.1e})',
    'torch can use {torch_threads} thread(s)':
        'torch {torch_threads} iş parçacığı kullanabilir',
    'unscale → clip: the optimizer gets min(true norm, max_norm)':
        'ölçeği geri al → kırp: optimize edici min(gerçek norm, max_norm) alır',
    'unscale_ per microbatch is refused at the second microbatch':
        'mikro yığın başına unscale_ ikinci mikro yığında reddedilir',
    'unshifted counting over-counts by exactly one item per row ({wrong} vs {right})':
        'kaydırılmamış sayım satır başına tam olarak bir öğe fazla sayar ({right} yerine {wrong})',
    'update 2 was skipped, by hand and by the engine':
        '2. güncelleme atlandı, hem elle hem motorda',
    'update {k} was skipped: no parameter changed':
        '{k}. güncelleme atlandı: hiçbir parametre değişmedi',
    'weights differ after training in both precisions — by far more in float32':
        "eğitimden sonra ağırlıklar iki duyarlılıkta da farklı — float32'de çok daha fazla",
    'with equal counts per microbatch all three normalizations agree':
        'mikro yığın başına sayılar eşitken üç normalleştirmenin üçü de uyuşur',
    'with equal counts the two agree':
        'sayılar eşitken ikisi uyuşur',
    'with ignored prompts the same mistake is invisible':
        'istemler yok sayıldığında aynı hata görünmez',
    "without AdamW's moments the fixed part drops to {value:.0%} and a plan fits":
        "AdamW'nin momentleri olmadan sabit kısım {value:.0%} düzeyine iner ve bir plan sığar",
    'without sharding every id repeats on both replicas':
        'parçalama olmadan her kimlik iki replikada da tekrarlanır',
    'yet the memory one microbatch keeps differs by {memory_spread:.0f}× between splits':
        'yine de bir mikro yığının tuttuğu bellek bölünmeler arasında {memory_spread:.0f} kat değişir',
    'your configuration passes: relative gradient gap {max_rel_diff:.1e} ≤ {tolerance:g}':
        'yapılandırmanız geçiyor: göreli gradyan farkı {max_rel_diff:.1e} ≤ {tolerance:g}',
    'your model passes on your 16 samples (gap {max_rel_diff:.1e})':
        'modeliniz 16 örneğinizde geçiyor (fark {max_rel_diff:.1e})',
    "zeroing per microbatch leaves a gradient {value:.1f}× smaller than the big batch's (A = {A}: between 1/A = {value2:.2f} and 1/√A = {value3:.2f}; measured {ratio:.2f})":
        'mikro yığın başına sıfırlamak, büyük yığınınkinden {value:.1f} kat küçük bir gradyan bırakır (A = {A}: 1/A = {value2:.2f} ile 1/√A = {value3:.2f} arasında; ölçülen {ratio:.2f})',
    '{dataset_size} samples make ⌈{dataset_size}/{effective_batch}⌉ = {updates} updates':
        '{dataset_size} örnek ⌈{dataset_size}/{effective_batch}⌉ = {updates} güncelleme eder',
    '{devices} devices, still {distinct} samples per update':
        '{devices} cihaz, yine de güncelleme başına {distinct} örnek',
    '{updates_attempted} updates attempted, {updates_applied} applied':
        '{updates_attempted} güncelleme denendi, {updates_applied} uygulandı',
    "÷A misses by {steps_gap:.1%}; ÷ the group's tokens is exact to rounding":
        '÷A {steps_gap:.1%} kaçırır; ÷ grubun tokenları yuvarlama düzeyinde kesindir',
    '÷A on variable lengths fails, and the verdict says: use tokens':
        'değişken uzunluklarda ÷A başarısız olur ve karar şunu söyler: tokens kullanın',
    '…and costs time: two copies per checkpointed layer':
        "…ve zaman alır: checkpoint'lenen katman başına iki kopya",
    '…and dividing by A instead fails on the same batches: {value}…':
        "…ve bunun yerine A'ya bölmek aynı yığınlarda başarısız olur: {value}…",
    '…but the microbatch keeps far less for backward':
        '…ama mikro yığın geri geçiş için çok daha az tutar',
    'all-reduces in one update of A = {A}: no_sync around forward + backward → {calls}, around the backward only → {calls2}':
        'A = {A} olan bir güncellemedeki all-reduce sayısı: ileri + geri geçişin etrafında no_sync → {calls}, yalnızca geri geçişin etrafında → {calls2}',
    'backward-only no_sync communicates after every microbatch, exactly like no no_sync at all':
        'yalnızca geri geçişi saran no_sync her mikro yığından sonra iletişim kurar, hiç no_sync yokmuş gibi',
    'deferred: each replica holds the whole gradient':
        'deferred: her replika gradyanın tamamını tutar',
    'deferred: {reductions_per_update:g} reduce-scatters per update, one per FSDP module ({modules})':
        'deferred: güncelleme başına {reductions_per_update:g} reduce-scatter, FSDP modülü başına bir tane ({modules})',
    'every: each replica holds 1/D of the gradient':
        "every: her replika gradyanın 1/D'sini tutar",
    'every: {reductions_per_update:g} reduce-scatters per update = A × {modules} modules (A = {A})':
        'every: güncelleme başına {reductions_per_update:g} reduce-scatter = A × {modules} modül (A = {A})',
    'forward and backward inside no_sync: one all-reduce (per bucket) per update, as in the library':
        'ileri ve geri geçiş no_sync içinde: güncelleme başına (kova başına) bir all-reduce, kütüphanedeki gibi',
    'global denominator = the single-process big batch (relative gap {max_rel_diff:.1e})':
        'global payda = tek süreçli büyük yığın (göreli fark {max_rel_diff:.1e})',
    'sharded: all ids distinct, the update runs':
        'parçalı: tüm kimlikler farklı, güncelleme çalışır',
    'sync {sync}: the sharded update equals the single-process big batch (relative gap {max_rel_diff:.1e}, fp32 tolerance {tolerance:g}; the naive per-replica mean: {naive_rel_diff:.1e})':
        'sync {sync}: parçalanmış güncelleme tek süreçli büyük yığına eşittir (göreli fark {max_rel_diff:.1e}, fp32 toleransı {tolerance:g}; replika başına saf ortalama: {naive_rel_diff:.1e})',
    'the global denominator is the sum over replicas':
        'global payda, replikalar üzerindeki toplamdır',
    'the mistake costs communication, not correctness (gap {wrong:.1e}: rounding)':
        'hata iletişime mal olur, doğruluğa değil (fark {wrong:.1e}: yuvarlama)',
    'the naive local mean is off by {max_rel_diff:.1%} when replicas hold {items_per_replica} tokens':
        'replikalar {items_per_replica} token tuttuğunda saf yerel ortalama {max_rel_diff:.1%} sapar',
    "the plain loop's gradient = the library's (relative gap {right:.1e})":
        'düz döngünün gradyanı = kütüphaneninki (göreli fark {right:.1e})',
    'unsharded: every id appears on both replicas, and the update is refused':
        'parçasız: her kimlik iki replikada da görünür ve güncelleme reddedilir',
    'with no_sync each update sends the gradient once':
        'no_sync ile her güncelleme gradyanı bir kez gönderir',
    'without no_sync: {calls_per_update:g} all-reduces per update; with it: {calls_per_update2:g} (A = {A})':
        'no_sync olmadan: güncelleme başına {calls_per_update:g} all-reduce; onunla: {calls_per_update2:g} (A = {A})',
}
