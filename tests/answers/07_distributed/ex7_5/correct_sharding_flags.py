# correct: a table of which parts each strategy shards; floor division of whole bytes
def bytes_per_rank(n_params, world_size, strategy):
    sharded = {"ddp": (False, False, False), "zero1": (False, False, True),
               "zero2": (False, True, True), "fsdp": (True, True, True)}[strategy]
    total = 0
    for nbytes, is_sharded in zip((4, 4, 8), sharded):
        part = int(nbytes * n_params)
        total += part // world_size if is_sharded else part
    return float(total)


def choose_strategy(n_params, gpu_bytes, world_size):
    for strategy, name in (("ddp", "ddp"), ("fsdp", "fsdp")):
        if gpu_bytes >= bytes_per_rank(n_params, world_size, strategy):
            return name
    return "offload"
