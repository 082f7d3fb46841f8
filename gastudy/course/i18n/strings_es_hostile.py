"""Spanish strings of the hostile-input pass (exercise 06.3's answers refused up front): English → Spanish.

Part of the es table (merged with strings_es.py). ``{fields}`` unchanged, Latin digits.
"""

STRINGS: dict[str, str] = {
    "your dict has the keys {got}; answer with exactly reduce_scatters and gradient_bytes":
        "tu dict tiene las claves {got}; responde exactamente con reduce_scatters y gradient_bytes",
    "{key} must be a finite number, got {value}":
        "{key} debe ser un número finito; se recibió {value}",
}
