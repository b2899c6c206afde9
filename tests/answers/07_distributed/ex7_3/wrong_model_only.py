# caught by the visible tests
# wrong: saves and restores the model but not the optimizer state, so the resumed Adam starts afresh
# (the same as a %%writefile ckpt.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ckpt.py", r'''# wrong: saves and restores the model but not the optimizer state, so the resumed Adam starts afresh
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    if dist.get_rank() == 0:
        torch.save({"model": ddp_model.module.state_dict(), "optimizer": {}, "step": step}, path)
    dist.barrier()


def load_checkpoint(model, optimizer, path):
    state = torch.load(path, map_location=next(model.parameters()).device, weights_only=True)
    model.load_state_dict(state["model"])
    return state["step"]
''')
