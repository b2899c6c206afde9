%%writefile ckpt.py
# wrong: loads on rank 0 only; DDP re-broadcasts the weights, but rank 1 keeps a fresh optimizer state
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
