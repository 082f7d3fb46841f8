"""Arabic strings of the hostile-input pass (exercise 06.3's answers refused up front): English → Arabic.

Part of the ar table (merged with strings_ar.py). ``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    "your dict has the keys {got}; answer with exactly reduce_scatters and gradient_bytes":
        "مفاتيح القاموس dict الذي أرسلته: {got}؛ أجب بالمفتاحين reduce_scatters و gradient_bytes فقط",
    "{key} must be a finite number, got {value}":
        "يجب أن تكون قيمة {key} عددًا منتهيًا؛ وصلنا: {value}",
}
