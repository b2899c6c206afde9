%%writefile ckpt.py
# correct: weights_only left at torch's default (True), map_location from the model, an all_reduce as the sync
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    rank = dist.get_rank()
    if rank == 0:
        state = {"model": ddp_model.module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
        torch.save(state, path)
    done = torch.zeros(1)
    dist.all_reduce(done)  # a collective: no rank gets past it before rank 0 has saved


def load_checkpoint(model, optimizer, path):
    where = next(model.parameters()).device
    ckpt = torch.load(path, map_location=where)
    optimizer.load_state_dict(ckpt["optimizer"])
    model.load_state_dict(ckpt["model"])
    return ckpt["step"]
