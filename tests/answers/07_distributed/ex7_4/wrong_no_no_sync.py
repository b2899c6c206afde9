# caught by the visible tests
# wrong: the right update, but every micro-batch's backward all-reduces
# (the same as a %%writefile accum.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "accum.py", r'''# wrong: the right update, but every micro-batch's backward all-reduces
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    total = sum(len(x) for x, _ in micro_batches)
    optimizer.zero_grad()
    mean_loss = 0.0
    for x, y in micro_batches:
        loss = F.mse_loss(ddp_model(x), y) * (len(x) / total)
        loss.backward()
        mean_loss += loss.item()
    optimizer.step()
    return mean_loss
''')
