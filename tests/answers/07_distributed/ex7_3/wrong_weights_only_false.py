# caught by the visible tests
# wrong: torch.load(..., weights_only=False) unpickles arbitrary objects: a checkpoint file could run code
# (the same as a %%writefile ckpt.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ckpt.py", r'''# wrong: torch.load(..., weights_only=False) unpickles arbitrary objects: a checkpoint file could run code
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    if dist.get_rank() == 0:
        torch.save({"model": ddp_model.module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)
    dist.barrier()


def load_checkpoint(model, optimizer, path):
    state = torch.load(path, map_location=next(model.parameters()).device, weights_only=False)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]
''')
