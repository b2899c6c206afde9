# caught by the visible tests
# wrong: every rank writes the same file
# (the same as a %%writefile ckpt.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ckpt.py", r'''# wrong: every rank writes the same file
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    torch.save({"model": ddp_model.module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)
    dist.barrier()


def load_checkpoint(model, optimizer, path):
    state = torch.load(path, map_location=next(model.parameters()).device, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]
''')
