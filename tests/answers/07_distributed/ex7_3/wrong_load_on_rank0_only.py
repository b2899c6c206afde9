# caught by the visible tests
# wrong: loads on rank 0 only; DDP re-broadcasts the weights, but rank 1 keeps a fresh optimizer state
# (the same as a %%writefile ckpt.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ckpt.py", r'''# wrong: loads on rank 0 only; DDP re-broadcasts the weights, but rank 1 keeps a fresh optimizer state
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    if dist.get_rank() == 0:
        torch.save({"model": ddp_model.module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)
    dist.barrier()


def load_checkpoint(model, optimizer, path):
    step = torch.tensor([0])
    if dist.get_rank() == 0:
        state = torch.load(path, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step[0] = state["step"]
    dist.broadcast(step, src=0)
    return int(step)
''')
