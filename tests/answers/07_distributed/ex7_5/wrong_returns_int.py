# wrong: the right numbers of bytes, but as ints (floor division), not as a float
def bytes_per_rank(n_params, world_size, strategy):
    n, w = int(n_params), world_size
    return {"ddp": 16 * n, "zero1": 8 * n + 8 * n // w, "zero2": 4 * n + 12 * n // w, "fsdp": 16 * n // w}[strategy]


def choose_strategy(n_params, gpu_bytes, world_size):
    if bytes_per_rank(n_params, world_size, "ddp") <= gpu_bytes:
        return "ddp"
    if bytes_per_rank(n_params, world_size, "fsdp") <= gpu_bytes:
        return "fsdp"
    return "offload"
