# correct: the table's bytes per parameter per rank, times the number of parameters
def bytes_per_rank(n_params, world_size, strategy):
    w = world_size
    per_parameter = {"ddp": 4 + 4 + 8, "zero1": 4 + 4 + 8 / w, "zero2": 4 + (4 + 8) / w, "fsdp": (4 + 4 + 8) / w}
    return float(per_parameter[strategy] * n_params)


def choose_strategy(n_params, gpu_bytes, world_size):
    if gpu_bytes < bytes_per_rank(n_params, world_size, "ddp"):
        return "fsdp" if bytes_per_rank(n_params, world_size, "fsdp") <= gpu_bytes else "offload"
    return "ddp"
