# Exercise 12.1 — re-measure a claim you doubted (MB-12)
from gastudy.course.labs.questions import QUESTIONS, ask

print(list(QUESTIONS))            # every key
answer = "faster"                 # any key works; the checker measures it again
print(ask(answer).text)
