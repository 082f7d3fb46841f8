"""Turkish strings of the hostile-input pass (exercise 06.3's answers refused up front): English → Turkish.

Part of the tr table (merged with strings_tr.py). ``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    "your dict has the keys {got}; answer with exactly reduce_scatters and gradient_bytes":
        "sözlüğünüzdeki anahtarlar: {got}; tam olarak reduce_scatters ve gradient_bytes anahtarlarıyla yanıtlayın",
    "{key} must be a finite number, got {value}":
        "{key} sonlu bir sayı olmalı; gelen: {value}",
}
