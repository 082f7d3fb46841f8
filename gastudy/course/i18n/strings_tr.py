"""The course's user-visible strings in tr: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    'Built by {command} in {seconds} s.':
        "{command} ile {seconds} sn'de oluşturuldu.",
    'Course index':
        'Kurs dizini',
    'Gradient accumulation and activation checkpointing, done right':
        'Gradyan birikimi ve aktivasyon kontrol noktaları, doğru biçimde',
    'Teaching this in a room? Read the {link}.':
        'Bu kursu bir sınıfta mı anlatacaksınız? Şuna göz atın: {link}.',
    'The static edition of the gastudy course: every notebook was executed on {stamp} and every plot and table below is the measurement that run produced. Nothing here needs a kernel; to change the inputs, open the notebooks in JupyterLab.':
        "gastudy kursunun statik sürümü: her defter {stamp} tarihinde çalıştırıldı ve aşağıdaki her grafik ve tablo o çalıştırmanın ölçümüdür. Burada hiçbir şey çekirdek gerektirmez; girdileri değiştirmek için defterleri JupyterLab'da açın.",
    'notebook':
        'defter',
    'run time':
        'çalışma süresi',
    'sections':
        'bölümler',
    'the course, static edition':
        'kurs, statik sürüm',
    'what it shows':
        'ne gösteriyor',
    'workshop guide':
        'atölye rehberi',
}
