# caught by the visible tests
# wrong: counts one Adam buffer (4 bytes) instead of two (exp_avg and exp_avg_sq)
def bytes_per_rank(n_params, world_size, strategy):
    p, g, o = 4.0 * n_params, 4.0 * n_params, 4.0 * n_params
    w = world_size
    return {"ddp": p + g + o, "zero1": p + g + o / w, "zero2": p + (g + o) / w, "fsdp": (p + g + o) / w}[strategy]


def choose_strategy(n_params, gpu_bytes, world_size):
    if bytes_per_rank(n_params, world_size, "ddp") <= gpu_bytes:
        return "ddp"
    if bytes_per_rank(n_params, world_size, "fsdp") <= gpu_bytes:
        return "fsdp"
    return "offload"
