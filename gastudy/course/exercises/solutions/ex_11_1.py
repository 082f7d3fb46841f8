# Exercise 11.1 — an update function of your own that passes the clinic (MB-11)
from gastudy.core.engine import model_inputs
from gastudy.core.loss import summed_loss


def my_update(model, optimizer, scheduler, group):
    task = "classification" if "inputs" in group.microbatches[0] else "causal"
    device = next(model.parameters()).device
    total = 0.0
    for mb in group.microbatches:                      # parameters fixed for the whole group
        loss_sum, _ = summed_loss(model(**model_inputs(mb, device)), mb, task)
        loss = loss_sum / group.supervised_items       # divide once, by the whole group's items
        loss.backward()                                # the graph is freed here
        total += loss.item()                           # keep a number, not the graph
    optimizer.step()
    if scheduler is not None:
        scheduler.step()                               # once per applied update
    optimizer.zero_grad(set_to_none=True)              # the next group starts from zero
    return total


answer = my_update
