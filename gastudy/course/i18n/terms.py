"""The course's terminology in four languages: one chosen rendering per term.

The source documents disagree with themselves (the Arabic checkpointing guide uses at least five
renderings of "checkpointing"; the Arabic accumulation guide says both دفعات مصغّرة and
الدفعات الفرعية for microbatch; the Turkish guide says mikrobatch, mikro yığın, mikro grup and
mikro parti; the Spanish guide writes both mini-lotes and mini lotes). This table settles each
term once. Translations of the course use these renderings, and every rendering is shown with the
English term beside it, because learners meet the English word in code and error messages.

``variants`` lists what the sources say instead; ``note`` records a correction where a source
slipped. ``wrong`` lists renderings a translation of the course must not use (found beside the
chosen one, or a synonym a translator would plausibly reach for: one concept, one term): a phrase,
matched at the start of a word with any ending, or a :class:`Near` — a word that is wrong only in
some company ("elementos" is the supervised items beside "grupo" or "microlote", and the elements
of a tensor beside "tensor" or "bytes"). :func:`violations` finds them, terms left in English, and
English words inside a formula of the prose (``capas × m × T × hidden``, :data:`FORMULA_WORDS`),
in a translated text; a test runs it over every catalog. Course section: 00 (glossary).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Near:
    """A wrong rendering only in some company: ``text`` (matched like a phrase of
    :attr:`Term.wrong`) when a word starting with one of ``near`` stands within ``window`` words of
    it in the same sentence and no word starting with one of ``unless`` does."""

    text: str
    near: tuple[str, ...]
    unless: tuple[str, ...] = ()
    window: int = 6

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Term:
    """One course term: English, Turkish, Spanish and Arabic renderings, the sources' variants."""

    en: str
    tr: str
    es: str
    ar: str
    variants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    note: str = ""
    wrong: dict[str, tuple[str | Near, ...]] = field(default_factory=dict)
    """Renderings a translation must not use, per language: found beside the chosen one, or a
    synonym a translator could pick; a :class:`Near` only in the company it names."""
    english: tuple[str, ...] = ()
    """Shorter English names of the term (``"checkpointing"``): like the term itself, they may
    appear in a translation only where the glossary's rendering keeps them, or as a gloss in
    parentheses."""

    def rendering(self, code: str) -> str:
        """The chosen rendering in language ``code`` (``"en"``, ``"tr"``, ``"es"``, ``"ar"``)."""
        if code not in ("en", "tr", "es", "ar"):
            raise ValueError(f"unknown language {code!r}: choose 'en', 'tr', 'es' or 'ar'")
        return getattr(self, code)


TERMS: tuple[Term, ...] = (
    Term("microbatch", "mikro yığın", "microlote", "دفعة مصغّرة",
         {"tr": ("mikrobatch", "mikro yığın", "mikro grup", "mikro parti"),
          "es": ("mini-lote", "mini lote"), "ar": ("دفعات مصغّرة", "الدفعات الفرعية")},
         wrong={"tr": ("mikrobatch", "mikro grup", "mikro parti", "mikro-yığın", "mikroyığın", "mikro batch",
                       "mini yığın", "alt yığın", "mikro küme"),
                "es": ("mini-lote", "mini lote", "minilote", "micro-lote", "micro lote", "sublote", "sub-lote"),
                "ar": ("الدفعات الفرعية", "دفعة فرعية", "دفعات فرعية", "الدفعة الدقيقة", "دفعة دقيقة",
                       "الدفعات الدقيقة", "دفعات دقيقة", "دفعة مجهرية", "دفعات مجهرية", "ميكرو دفعة")}),
    Term("accumulation group", "birikim grubu", "grupo de acumulación", "مجموعة التراكم",
         wrong={"tr": ("biriktirme grubu", "birikim kümesi", "biriktirme kümesi", "toplama grubu"),
                "es": ("grupo de acumulado", "bloque de acumulación", "ciclo de acumulación",
                       "ventana de acumulación", "lote de acumulación"),
                "ar": ("مجموعة التجميع", "مجموعة المراكمة", "دورة التراكم", "كتلة التراكم")}),
    Term("update (optimizer update)", "güncelleme (optimize edici güncellemesi)",
         "actualización (del optimizador)", "تحديث (تحديث المُحسِّن)",
         wrong={"tr": ("güncelleştirme",), "es": ("puesta al día",), "ar": ("تحديثة",)},
         note="The optimizer's step is a step (adım, paso, خطوة) where the English says step: an "
              "update is what the step does once per group."),
    Term("gradient accumulation", "gradyan birikimi", "acumulación de gradientes", "تراكم التدرّجات",
         {"tr": ("birikim", "biriktirme")}),
    Term("accumulation steps (A)", "birikim adımı sayısı (A)", "pasos de acumulación (A)",
         "خطوات التراكم (A)"),
    Term("effective batch", "etkin yığın", "lote efectivo", "الدفعة الفعّالة",
         {"tr": ("etkin batch", "efektif batch")}, wrong={"tr": ("etkin batch", "efektif batch")}),
    Term("global batch (m × A × D)", "global yığın (m × A × D)", "lote global (m × A × D)",
         "الدفعة الشاملة (m × A × D)",
         wrong={"tr": ("küresel yığın", "genel yığın"),
                "ar": ("الدفعة الكلية", "دفعة كلية", "الدفعة العامة", "دفعة عامة")},
         note="The samples of one update over all replicas. Global is global in every part of "
              "the glossary: Turkish global (as in global payda), Arabic الشامل (as in "
              "الاختزال الشامل for all-reduce)."),
    Term("micro-batch size (m)", "mikro yığın boyutu (m)", "tamaño del microlote (m)",
         "حجم الدفعة المصغّرة (m)", {"es": ("tamaño de lote por dispositivo",)}),
    Term("replica", "replika", "réplica", "نسخة مكرَّرة",
         wrong={"ar": ("نسخة متكررة", "نسخ متكررة", "النسخ المتكررة", "نسخة متماثلة", "نسخ متماثلة", "مستنسخ")},
         note="A copy of the model (Turkish kopya, Spanish copia, Arabic نسخة مطابقة) is a copy; a "
              "replica is one of the D data-parallel copies that each read their own share of the "
              "samples."),
    Term("data parallelism", "veri paralelliği", "paralelismo de datos", "توازي البيانات"),
    Term("sharded data parallelism (FSDP)", "parçalanmış veri paralelliği (FSDP)",
         "paralelismo de datos fragmentado (FSDP)", "توازي البيانات المجزّأ (FSDP)",
         {"tr": ("durum parçalama",)}),
    Term("supervised item", "denetlenen öğe", "objetivo de predicción", "هدف تنبؤ",
         {"tr": ("denetlenen token", "ilgili öğe"), "ar": ("أهداف التنبؤ",),
          "es": ("elementos", "tokens supervisados")},
         wrong={"tr": ("denetlenen token", "denetimli öğe", "gözetimli öğe", "denetlenen eleman", "hedef öğe"),
                "es": ("tokens supervisados", "token supervisado", "objetivos supervisados", "tokens objetivo",
                       "token objetivo",
                       Near("elemento", near=("grupo", "microlote", "supervisad", "evaluad", "contad", "cuent",
                                              "recuento", "pondera", "desplazamiento", "fila", "posici",
                                              "denominador", "divid", "divide", "normaliz", "objetivo", "÷"),
                            unless=("tensor", "byte", "hidden", "capa", "peso", "lista", "matriz", "vector"))),
                "ar": ("الرموز المستهدفة", "رموز مستهدفة", "العناصر الخاضعة للإشراف", "الرموز الخاضعة للإشراف",
                       "العناصر المراقبة")},
         note="The targets the loss is computed on and divided by, whatever they are (tokens of a "
              "language model, labels of a classifier): the English says supervised items and, for "
              "a language model, supervised tokens; the translations say one thing. Spanish "
              "chapter 03 said objetivos de predicción, elementos and tokens supervisados; a "
              "tensor's elements (elementos de un tensor) are another word and stay."),
    Term("token", "token", "token", "رمز (token)",
         {"tr": ("token'lar",)},
         note="Turkish suffixes follow the English pronunciation (\"tokın\") with no apostrophe, as "
              "for any common noun: tokenlar, tokenları, tokenın, 5 tokenlık. The Turkish guide "
              "writes both tokenlar and token'lar; the course writes tokenlar."),
    Term("padding", "dolgu", "relleno (padding)", "الحشو"),
    Term("ignored label (-100)", "yok sayılan etiket (-100)", "etiqueta ignorada (-100)",
         "تسمية مُهمَلة (-100)"),
    Term("shifted labels", "kaydırılmış etiketler", "etiquetas desplazadas", "التسميات المُزاحة"),
    Term("causal language model", "nedensel dil modeli", "modelo de lenguaje causal",
         "نموذج لغوي سببي", {"ar": ("نماذج LM السببية",)}),
    Term("denominator", "payda", "denominador", "المقام"),
    Term("global denominator", "global payda", "denominador global", "المقام الشامل",
         wrong={"tr": ("küresel payda", "genel payda", "ortak payda", "toplam payda"),
                "es": ("denominador común", "denominador total", "denominador general"),
                "ar": ("المقام الكلي", "المقام العام", "المقام المشترك", "المقام الإجمالي")},
         note="The items of the whole group over all replicas, which every replica divides by. "
              "A reviewer found three renderings in each of the Turkish and Arabic translations; "
              "ortak payda and المقام المشترك also say \"common denominator\" of fractions."),
    Term("loss normalization", "kayıp normalleştirmesi", "normalización de la pérdida",
         "تطبيع الخسارة", {"es": ("escala de pérdida",), "ar": ("تحديد مقياس الدالة",)},
         wrong={"es": ("escala de pérdida",), "ar": ("تحديد مقياس الدالة",)},
         note="The Hugging Face guides call this section \"loss scaling\": dividing the loss by "
              "the number of targets. The Arabic heading تحديد مقياس الدالة (\"setting the "
              "function's scale\") loses the meaning; the course says تطبيع الخسارة. It is not "
              "the loss scale of mixed precision (see \"loss scale\")."),
    Term("mean of means", "ortalamaların ortalaması", "media de medias", "متوسط المتوسطات"),
    Term("loss", "kayıp", "pérdida", "الخسارة"),
    Term("gradient", "gradyan", "gradiente", "التدرّج"),
    Term("forward pass", "ileri geçiş", "pasada hacia adelante", "التمرير الأمامي",
         {"ar": ("المرور الأمامي",)}),
    Term("backward pass", "geri geçiş", "pasada hacia atrás", "التمرير الخلفي",
         {"ar": ("المرور الخلفي", "مسار الرجوع")}),
    Term("optimizer", "optimize edici", "optimizador", "المُحسِّن"),
    Term("learning rate", "öğrenme oranı", "tasa de aprendizaje", "معدّل التعلّم"),
    Term("scheduler (learning-rate schedule)", "zamanlayıcı (öğrenme oranı takvimi)",
         "planificador (de la tasa de aprendizaje)", "المُجدوِل (جدول معدّل التعلّم)",
         {"tr": ("scheduler", "takvim")}),
    Term("mixed precision", "karma hassasiyet", "precisión mixta", "الدقة المختلطة",
         {"tr": ("karışık hassasiyet", "karma duyarlılık")}, wrong={"tr": ("karma duyarlılık",)},
         note="Turkish hassasiyet is numerical precision everywhere in the course; duyarlılık is "
              "recall, a metric."),
    Term("autocast", "autocast (otomatik tür dönüştürme)", "autocast (conversión automática de tipo)",
         "autocast (التحويل التلقائي لنوع البيانات)"),
    Term("gradient scaler", "gradyan ölçekleyici (GradScaler)", "escalador de gradientes (GradScaler)",
         "مُحجِّم التدرّجات (GradScaler)"),
    Term("loss scale", "kayıp ölçeği", "factor de escala de la pérdida", "معامل تحجيم الخسارة",
         {"tr": ("ölçek faktörü",)}),
    Term("gradient clipping", "gradyan kırpma", "recorte de gradientes", "قصّ التدرّجات"),
    Term("activation", "aktivasyon", "activación", "التفعيل",
         {"ar": ("التنشيطات", "التفعيلات")}),
    Term("activation checkpointing", "aktivasyon kontrol noktası (checkpointing)",
         "puntos de control de activaciones (checkpointing)", "نقاط تفتيش التفعيلات (checkpointing)",
         {"ar": ("التحقق من النقاط", "نقطة التفتيش", "تدرّج نقطة التفتيش", "الفحص النقطة",
                 "فحص التدرّج", "نقاط التحقق"), "es": ("gradient checkpointing",),
          "tr": ("bellek kontrol noktaları",)},
         wrong={"ar": ("التحقق من النقاط", "الفحص النقطة", "فحص التدرّج", "نقاط التحقق",
                       "تدرّج نقطة التفتيش", "نقاط الحفظ", "نقطة حفظ", "نقاط المراجعة", "نقاط الفحص",
                       "نقطة فحص"),
                "tr": ("checkpoint'", "checkpoint’", "denetim noktası", "kayıt noktası", "kontrol noktalama"),
                "es": ("puntos de comprobación", "punto de comprobación", "puntos de guardado",
                       "punto de chequeo", "puntos de chequeo", "checkpoint de activaciones",
                       "checkpoints de activaciones")},
         english=("checkpointing", "checkpointed"),
         note="The Arabic checkpointing guide mixes at least five renderings, one of them "
              "ungrammatical (الفحص النقطة); التحقق من النقاط reads as \"verifying the points\". "
              "The course uses نقاط تفتيش التفعيلات throughout."),
    Term("recomputation", "yeniden hesaplama", "recálculo", "إعادة الحساب"),
    Term("offload", "boşaltma (ana belleğe aktarma)", "descarga a la memoria del host (offload)",
         "التفريغ إلى ذاكرة المضيف (offload)"),
    Term("host memory", "ana bellek (host)", "memoria del host", "ذاكرة المضيف"),
    Term("pinned memory", "sabitlenmiş bellek (pinned)", "memoria fijada (pinned)",
         "الذاكرة المثبّتة (pinned)"),
    Term("peak memory", "tepe bellek", "pico de memoria", "ذروة الذاكرة",
         {"tr": ("pik",)}),
    Term("allocator", "bellek ayırıcı", "asignador de memoria", "مُخصِّص الذاكرة"),
    Term("all-reduce", "all-reduce (tümüne indirgeme)", "all-reduce (reducción global)",
         "all-reduce (الاختزال الشامل)"),
    Term("all-gather", "all-gather (tümünden toplama)", "all-gather (recopilación global)",
         "all-gather (التجميع الشامل)"),
    Term("reduce-scatter", "reduce-scatter (indirge ve dağıt)", "reduce-scatter (reducir y repartir)",
         "reduce-scatter (الاختزال ثم التوزيع)"),
    Term("gradient synchronization (no_sync)", "gradyan senkronizasyonu (no_sync)",
         "sincronización de gradientes (no_sync)", "مزامنة التدرّجات (no_sync)"),
    Term("throughput", "verim (işlem hızı)", "rendimiento (throughput)", "الإنتاجية"),
    Term("short last group", "eksik son grup", "último grupo incompleto", "المجموعة الأخيرة الناقصة",
         {"tr": ("kısmi grup",)}),
    Term("experiment", "deney", "experimento", "تجربة",
         {"tr": ("deneyim",)},
         note="The Turkish guide's heading \"aynı deneyimi garanti etmez\" says \"experience\" "
              "(deneyim) where it means experiment (deney): the same effective batch does not "
              "guarantee the same experiment."),
    Term("one-update check (verifier)", "tek güncelleme doğrulaması", "verificación de una actualización",
         "التحقق من تحديث واحد"),
    Term("symptom (diagnostic)", "belirti (tanı)", "síntoma (diagnóstico)", "عَرَض (تشخيص)"),
    Term("run record", "çalışma kaydı", "registro de la ejecución", "سجلّ التشغيل"),
    Term("nats (loss unit)", "nat (kayıp birimi)", "nats (unidad de la pérdida)", "nat (وحدة الخسارة)"),
    Term("epoch", "dönem", "época", "حقبة"),
    Term("tolerance (of a comparison)", "tolerans", "tolerancia", "حدّ التسامح",
         wrong={"ar": ("سماحية", "تفاوت")},
         note="How far two numbers may differ and still count as equal. The Arabic translations "
              "said السماحية (the physicist's permittivity), تفاوت (a disparity) and حدّ التسامح; "
              "the course says حدّ التسامح, and اختلاف for a disparity. متفاوت (varying, as in "
              "varying lengths) is another word and stays."),
)

CODE_WORDS = frozenset({"tokens", "steps", "mean"})
"""Values of the library's settings that a translation names as they are typed (gastudy's
normalizations ``tokens``, ``steps`` and ``mean``), even where a term shares their spelling."""


def term(english: str) -> Term:
    """The :class:`Term` whose English name is ``english`` (case-insensitive). Raises ``KeyError``
    naming close matches when there is none."""
    for entry in TERMS:
        if entry.en.lower() == english.lower():
            return entry
    close = [e.en for e in TERMS if english.lower() in e.en.lower()]
    raise KeyError(f"no course term {english!r}" + (f"; did you mean {close}?" if close else ""))


def glossary_rows(code: str) -> list[dict[str, str]]:
    """The glossary as table rows for language ``code``: the rendering with the English term
    beside it (English alone for ``"en"``)."""
    rows = []
    for entry in TERMS:
        row = {"English": entry.en}
        if code != "en":
            row[code] = entry.rendering(code)
        rows.append(row)
    return rows


# What :func:`violations` does not read: code (blocks, spans, ``{fields}``), links' targets and HTML
# tags, and what a translation cites rather than says: a quotation, an italic phrase (a source's
# title), a link's text (a page's title), a bold ASCII name (a setting, typed as it is).
_NOT_PROSE = re.compile(r"```.*?```|``.*?``|`[^`\n]*`|https?://\S+|\]\([^)\n]*\)|<[^>\n]*>|\{[^{}\n]*\}"
                        r"|«[^»]{1,300}»|“[^”]{1,300}”|„[^“”]{1,300}[“”]|\"[^\"]{1,300}\""
                        r"|(?<![\w*])\*[^*\s][^*]{0,300}?\*(?![\w*])|\*\*[\x20-\x7e]+?\*\*|\[[^\]]{1,300}\](?=\()",
                        re.S)
_GLOSS = re.compile(r"\([^()]*\)")
_MARKS = re.compile("[\u064b-\u0652\u0670\u0640\u200e\u200f]")  # Arabic vowel marks, tatweel, direction marks
_ARABIC_PREFIX = "(?:[وف]?[بكل]?(?:ال|ل)?)"  # and, so, with, as, for, the


def _normal(text: str) -> str:
    """``text`` as :func:`violations` compares it: NFC, no Arabic vowel marks, case-folded."""
    return _MARKS.sub("", unicodedata.normalize("NFC", text)).casefold()


def _blank(pattern: re.Pattern, text: str) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _wrong_pattern(variant: str, code: str) -> re.Pattern:
    """A wrong rendering at the start of a word, with any ending (Turkish and Arabic suffixes,
    plurals) and, in Arabic, the article and the one-letter words written joined to it."""
    core = _normal(variant)
    if code == "ar":
        core = core[2:] if core.startswith("ال") else core
        return re.compile(rf"(?<!\w){_ARABIC_PREFIX}{re.escape(core)}")
    return re.compile(rf"(?<!\w){re.escape(core)}")


def _english_pattern(word: str) -> re.Pattern:
    """An English word as prose uses it: not part of an identifier (``x.word``, ``word_x``,
    ``word(``, ``word=``, ``gradient-word``), in the singular or plural, any suffix after an
    apostrophe (Turkish ``checkpointing'siz``)."""
    plural = "(?:es)?" if word.endswith(("s", "x", "z", "ch", "sh")) else "s?"
    return re.compile(rf"(?<![\w.\-/]){re.escape(_normal(word))}{plural}(?![\w\-(=]|\.\w)")


def english_names(entry: Term) -> tuple[str, ...]:
    """The English names of ``entry`` :func:`violations` looks for: its name without the
    parenthesized part (``"update"`` for ``"update (optimizer update)"``) and :attr:`Term.english`."""
    return (re.sub(r"\s*\([^)]*\)", "", entry.en).strip(), *entry.english)


FORMULA_WORDS = frozenset({
    "hidden", "head", "heads", "layer", "layers", "byte", "bytes", "sequence", "sample", "samples", "item",
    "items", "parameter", "parameters", "params", "vocab", "batch", "microbatch", "microbatches", "group",
    "loss", "sum", "count", "memory", "length", "size", "width", "depth", "element", "elements", "replicas",
})
"""English words a translation must not leave inside a formula of its prose (``capas × m × T ×
hidden``, ``m × heads × T × T``): the formula is read in the sentence's language. Settings typed as
they are (``every_n_layers``, ``num_items_in_batch``) are identifiers, and a formula in code is code."""

NATIVE_WORDS = {"es": frozenset({"byte", "bytes"}), "tr": frozenset(), "ar": frozenset()}
"""Words of :data:`FORMULA_WORDS` that are also the language's own."""

_FORMULA_OPERATORS = "×÷·/+−=≈"
_FORMULA_WORD = re.compile(r"(?<![\w.\-/'’])[a-z]+(?![\w\-(]|\.\w|['’]\w)")


def _in_formula(prose: str, start: int, end: int) -> bool:
    """True when the word at ``prose[start:end]`` stands beside a formula's operator: the nearest
    sign on its left or right, past blanks, digits, brackets and ``=``, is one of ``× ÷ · * / + − =``."""
    left = prose[:start].rstrip(" \t()[]0123456789=")
    right = prose[end:].lstrip(" \t()[]0123456789=")
    return bool(left[-1:] and left[-1] in _FORMULA_OPERATORS) or bool(right[:1] and right[0] in _FORMULA_OPERATORS)


_FORMULA_RUN = re.compile(r"[\w ×÷·*/+−=≈()\[\]‖,.]+")
_ASSIGNMENT = re.compile(r"\s*\(?[a-z_]\w+ [-+*/]?= ")


def formula_words(text: str, code: str) -> list[str]:
    """The English words of :data:`FORMULA_WORDS` inside a formula of the translated ``text``'s
    prose (code, links, quotations and ``{fields}`` are not read; nor is a Python statement
    written in the prose, ``total = total + loss``), one line each."""
    prose = _normal(_blank(_NOT_PROSE, text))
    own = NATIVE_WORDS.get(code, frozenset())
    found = []
    for hit in _FORMULA_WORD.finditer(prose):
        word = hit.group(0)
        if word not in FORMULA_WORDS or word in own or word in CODE_WORDS or not _in_formula(prose, hit.start(), hit.end()):
            continue
        run = next((m for m in _FORMULA_RUN.finditer(prose) if m.start() <= hit.start() < m.end()), None)
        statement = run is not None and any(_ASSIGNMENT.match(part) for part in re.split(r"[,(]", run.group(0)))
        if not statement:
            found.append(f"{word!r} left in English in a formula: write it in the sentence's language")
    return found


_SENTENCE_END = re.compile(r"[.;!?|\n]\s")


def _near_hits(rule: Near, prose: str, code: str) -> list[re.Match]:
    """The places of ``rule.text`` in ``prose`` that keep the company :class:`Near` asks for."""
    hits = []
    for hit in _wrong_pattern(rule.text, code).finditer(prose):
        starts = [m.end() for m in _SENTENCE_END.finditer(prose, 0, hit.start())]
        stop = _SENTENCE_END.search(prose, hit.end())
        word_end = hit.end() + re.match(r"\w*", prose[hit.end():]).end()  # elemento|s: the whole word
        left = re.findall(r"\w+|÷", prose[(starts[-1] if starts else 0):hit.start()])[-rule.window:]
        right = re.findall(r"\w+|÷", prose[word_end:stop.start() if stop else len(prose)])[:rule.window]
        if _starts_any(rule.near, left + right, code) and not _starts_any(rule.unless, left + right, code):
            hits.append(hit)
    return hits


def _starts_any(options: tuple[str, ...], words: list[str], code: str) -> bool:
    """True when one of ``words`` starts with one of ``options`` (Arabic: after a joined article)."""
    return any(_wrong_pattern(option, code).match(word) for option in options for word in words)


def violations(text: str, code: str) -> list[str]:
    """What the translated ``text`` (language ``code``: ``"tr"``, ``"es"``, ``"ar"``) says against
    the glossary, one line each: a rendering :attr:`Term.wrong` lists (whatever its case, suffix
    or, in Arabic, vowel marks and joined article; a :class:`Near` only in its company), a term
    left in English where the glossary gives it another rendering, and an English word inside a
    formula (:func:`formula_words`). An English name is fine in a gloss in parentheses ("puntos de
    control (checkpointing)") and where the rendering itself keeps it ("all-reduce (…)"); code,
    links, quotations and cited English titles are not prose and are never read. Empty when the
    text keeps the glossary."""
    if code not in ("tr", "es", "ar"):
        raise ValueError(f"unknown language {code!r}: choose 'tr', 'es' or 'ar'")
    prose = _normal(_blank(_NOT_PROSE, text))
    bare = _blank(_GLOSS, prose)
    found = []
    for entry in TERMS:
        chosen = entry.rendering(code)
        for variant in entry.wrong.get(code, ()):
            hits = (_near_hits(variant, prose, code) if isinstance(variant, Near)
                    else _wrong_pattern(variant, code).finditer(prose))
            for hit in hits:
                found.append(f"{hit.group(0).strip()!r} for {entry.en!r}: say {chosen!r}")
        kept = _normal(_blank(_GLOSS, chosen))
        for name in english_names(entry):
            if _english_pattern(name).search(kept):
                continue  # the rendering keeps the English name
            for hit in _english_pattern(name).finditer(bare):
                if hit.group(0) not in CODE_WORDS:
                    found.append(f"{hit.group(0)!r} left in English: say {chosen!r}")
    return found + formula_words(text, code)


# --------------------------------------------------------------------------- glosses
_GLOSS_WORDS = re.compile(r"\(([A-Za-z][A-Za-z \-']{1,50})\)")
_WORD = re.compile(r"[A-Za-z_]+")


def english_glosses(translation: str, english: str) -> list[str]:
    """The English glosses of a translated text: a phrase in parentheses, in Latin letters, of at
    least one word of three letters, that the English ``english`` it translates says in its prose
    (not in parentheses there) — "dolgu (padding)", "الحشو (padding)". Code, tags and fields are
    not read. In the order they stand."""
    mine, theirs = _blank(_NOT_PROSE, translation), _blank(_NOT_PROSE, english)
    found = []
    for match in _GLOSS_WORDS.finditer(mine):
        phrase = match.group(1).strip()
        if not re.search(r"[A-Za-z]{3}", phrase) or f"({phrase})" in theirs:
            continue
        if re.search(r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])", theirs, re.I):
            found.append(phrase)
    return found


def _singular(phrase: str) -> str:
    """``phrase`` with its last word's English plural ending taken off ("supervised items" →
    "supervised item", "batches" → "batch"): the glossary names a term once, in the singular."""
    for plural, one in (("ches", "ch"), ("shes", "sh"), ("ies", "y"), ("s", "")):
        if phrase.endswith(plural) and not phrase.endswith("ss"):
            return phrase[: -len(plural)] + one
    return phrase


def gloss_problems(chapter: list[tuple[str, str]], code_words: set[str]) -> list[str]:
    """What a chapter's translation glosses against the course's rule — an English gloss at a
    term's first use in a chapter only: ``chapter`` is its (English, translation) texts in order,
    ``code_words`` the words of its code cells (lower case). A gloss repeated after its first use,
    or a gloss of a phrase that is neither a glossary term (:func:`english_names`) nor words the
    learner meets in the chapter's code, is a problem, one line each."""
    names = {n.lower() for entry in TERMS for n in english_names(entry)}
    seen: set[str] = set()
    found = []
    for english, translation in chapter:
        for phrase in english_glosses(translation, english):
            key = phrase.lower()
            if key in seen:
                found.append(f"({phrase}) glossed again after its first use in the chapter")
            elif not ({key, _singular(key)} & names) and not {w.lower() for w in _WORD.findall(phrase)} <= code_words:
                found.append(f"({phrase}) glossed: not a glossary term, nor what the chapter's code says — "
                             "write it in the language alone")
            seen.add(key)
    return found
