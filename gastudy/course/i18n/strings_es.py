"""The course's user-visible strings in es: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
    'Built by {command} in {seconds} s.':
        'Generado con {command} en {seconds} s.',
    'Course index':
        'Índice del curso',
    'Gradient accumulation and activation checkpointing, done right':
        'Acumulación de gradientes y puntos de control de activaciones, bien hechos',
    'Teaching this in a room? Read the {link}.':
        '¿Va a impartir el curso en un aula? Lea la {link}.',
    'The static edition of the gastudy course: every notebook was executed on {stamp} and every plot and table below is the measurement that run produced. Nothing here needs a kernel; to change the inputs, open the notebooks in JupyterLab.':
        'La edición estática del curso gastudy: cada cuaderno se ejecutó el {stamp} y cada gráfico y tabla que aparece abajo es la medición que produjo esa ejecución. Nada de esto necesita un kernel; para cambiar las entradas, abra los cuadernos en JupyterLab.',
    'notebook':
        'cuaderno',
    'run time':
        'tiempo de ejecución',
    'sections':
        'secciones',
    'the course, static edition':
        'el curso, edición estática',
    'what it shows':
        'qué muestra',
    'workshop guide':
        'guía del taller',
}
