# caught by the visible tests
# wrong: saves the DDP wrapper's state_dict ("module." keys); its own loader strips them, a plain model cannot
# (the same as a %%writefile ckpt.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ckpt.py", r'''# wrong: saves the DDP wrapper's state_dict ("module." keys); its own loader strips them, a plain model cannot
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    if dist.get_rank() == 0:
        torch.save({"model": ddp_model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)
    dist.barrier()


def load_checkpoint(model, optimizer, path):
    state = torch.load(path, map_location=next(model.parameters()).device, weights_only=True)
    model.load_state_dict({k.removeprefix("module."): v for k, v in state["model"].items()})
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]
''')
