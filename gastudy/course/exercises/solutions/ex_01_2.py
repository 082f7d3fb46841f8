# Exercise 01.2 — one correct update, written by hand
from gastudy.core.engine import model_inputs
from gastudy.core.loss import summed_loss


def answer(model, optimizer, scheduler, group):
    device = next(model.parameters()).device
    total = 0.0
    for mb in group.microbatches:  # no zero_grad in here
        loss_sum, _ = summed_loss(model(**model_inputs(mb, device)), mb, "causal")
        loss = loss_sum / group.supervised_items  # the group's denominator, fixed up front
        loss.backward()  # adds this microbatch's contribution
        total += loss.item()  # a number, never the graph
    optimizer.step()
    if scheduler is not None:
        scheduler.step()
    optimizer.zero_grad(set_to_none=True)  # the next group starts from zero
    return total
