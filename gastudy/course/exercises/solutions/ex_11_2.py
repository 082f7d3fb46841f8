# Exercise 11.2 — how much does the unshifted count shrink the gradient? (GA-5, MB-11)
from gastudy.course.labs.clinic import ClinicLab

case = ClinicLab("unshifted_count")
answer = case.result.before.evidence["k"]   # ≈ 1.114: 78 counted items instead of 70
print(answer)
