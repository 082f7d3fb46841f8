"""Turkish strings of chapter 06's sharded section (FSDP2 lab, exercise 06.3): English → Turkish.

Part of the tr table (merged with strings_tr.py). Renderings from :mod:`gastudy.course.i18n.terms`;
``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    'DDP, no_sync':
        'DDP, no_sync',
    'FSDP2, sync deferred':
        'FSDP2, senkronizasyon ertelenmiş (deferred)',
    'FSDP2, sync every':
        'FSDP2, her mikro yığında senkronizasyon (every)',
    'MB-7 · Sharded data parallel (FSDP2): synchronize once per update or every microbatch?':
        'MB-7 · Parçalanmış veri paralelliği (FSDP2): güncelleme başına bir kez mi, her mikro yığında mı senkronize etmeli?',
    'DDP, then FSDP2, on {d} processes':
        'önce DDP, sonra FSDP2, {d} süreçte',
    'gradient reductions per update':
        'güncelleme başına gradyan indirgemesi',
    'peak gradient KiB per replica':
        'replika başına tepe gradyan (KiB)',
    'A = {a}, D = {d} processes (gloo), tiny-gpt in fp32':
        'A = {a}, D = {d} süreç (gloo), fp32 ile tiny-gpt',
    'DDP all-reduces and FSDP2 reduce-scatters are both gradient reductions; the times are noisy on a shared machine.':
        'DDP\'nin all-reduce çağrıları da FSDP2\'nin reduce-scatter çağrıları da gradyan indirgemesidir; '
        'paylaşılan bir makinede süreler gürültülüdür.',
    'whole gradient':
        'gradyanın tamamı',
    '1/D of it':
        'tamamının 1/D\'si',
    'setting':
        'ayar',
    'reductions / update':
        'indirgeme / güncelleme',
    'all-gathers / update':
        'all-gather / güncelleme',
    'peak gradient KiB':
        'tepe gradyan KiB',
    'of the whole gradient':
        'gradyanın tamamına oranı',
    'ms / update':
        'ms / güncelleme',
    'sync policy':
        'senkronizasyon politikası',
    'deferred (last microbatch)':
        'ertelenmiş (son mikro yığın)',
    'every microbatch':
        'her mikro yığın',
    'answer with a dict with the numbers reduce_scatters and gradient_bytes, got {answer}':
        'reduce_scatters ve gradient_bytes sayılarını içeren bir dict ile yanıtlayın; gelen: {answer}',
    '{calls} reduce-scatters (A = {a} backwards × {modules} FSDP modules) and about {held} bytes: each replica '
    'keeps only its 1/D shard of the gradient.':
        '{calls} reduce-scatter (A = {a} geri geçiş × {modules} FSDP modülü) ve yaklaşık {held} bayt: her replika '
        'gradyanın yalnızca kendi 1/D parçasını tutar.',
    "{n} reduce-scatters is the deferred policy's count: with 'every' each of the A backwards reduce-scatters every "
    "FSDP module":
        "{n} reduce-scatter ertelenmiş (deferred) politikanın sayısıdır: 'every' ile A geri geçişin her biri her FSDP "
        "modülünü reduce-scatter eder",
    "{n} bytes is the whole gradient, what DDP and the deferred policy hold; 'every' keeps only its shard":
        "{n} bayt gradyanın tamamıdır, yani DDP'nin ve ertelenmiş politikanın tuttuğu miktar; 'every' yalnızca kendi "
        "parçasını tutar",
    'gradient_bytes: you said {n}; divide the whole gradient by D':
        'gradient_bytes: {n} dediniz; gradyanın tamamını D\'ye bölün',
    "{n} counts the backwards only: each backward reduce-scatters every FSDP module (tiny-gpt's blocks and its root)":
        "{n} yalnızca geri geçişleri sayar: her geri geçiş her FSDP modülünü reduce-scatter eder (tiny-gpt'nin "
        "blokları ve kökü)",
    'reduce_scatters: you said {n}; count A × the FSDP modules':
        'reduce_scatters: {n} dediniz; A × FSDP modülü sayısını hesaplayın',
}
