%%writefile ckpt.py
# wrong: returns the optimizer's own step count instead of the `step` that was saved
import torch
import torch.distributed as dist


def save_checkpoint(ddp_model, optimizer, step, path):
    if dist.get_rank() == 0:
        torch.save({"model": ddp_model.module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, path)
    dist.barrier()


def load_checkpoint(model, optimizer, path):
    state = torch.load(path, map_location=next(model.parameters()).device, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return int(next(iter(optimizer.state.values()))["step"])
