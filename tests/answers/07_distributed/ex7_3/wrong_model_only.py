%%writefile ckpt.py
# wrong: saves and restores the model but not the optimizer state, so the resumed Adam starts afresh
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
