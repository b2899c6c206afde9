# caught by the visible tests
# wrong: every micro-batch inside no_sync, so the gradients are never all-reduced
# (the same as a %%writefile accum.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "accum.py", r'''# wrong: every micro-batch inside no_sync, so the gradients are never all-reduced
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    total = sum(len(x) for x, _ in micro_batches)
    optimizer.zero_grad()
    mean_loss = 0.0
    with ddp_model.no_sync():
        for x, y in micro_batches:
            loss = F.mse_loss(ddp_model(x), y) * (len(x) / total)
            loss.backward()
            mean_loss += loss.item()
    optimizer.step()
    return mean_loss
''')
