%%writefile ckpt.py
# correct: strips "module." with consume_prefix_in_state_dict_if_present, syncs with broadcast_object_list
import os

import torch
import torch.distributed as dist
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


def save_checkpoint(ddp_model, optimizer, step, path):
    if int(os.environ["RANK"]) == 0:
        model_state = ddp_model.state_dict()
        consume_prefix_in_state_dict_if_present(model_state, "module.")
        tmp = path + ".tmp"
        torch.save({"model": model_state, "optimizer": optimizer.state_dict(), "step": step}, tmp)
        os.replace(tmp, path)  # atomic: the file appears complete or not at all
    done = [step]
    dist.broadcast_object_list(done, src=0)  # every rank waits here until rank 0 has saved


def load_checkpoint(model, optimizer, path):
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])  # moves the state to the parameters' device
    return int(ckpt["step"])
