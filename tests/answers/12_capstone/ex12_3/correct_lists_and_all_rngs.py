import random

import numpy as np


def save_checkpoint(path, run):
    """Exercise 12.3: write everything needed to continue `run` bit for bit."""
    np_state = np.random.get_state()
    torch.save({
        "rng": {"torch": torch.random.get_rng_state().tolist(),
                "loader": run.loader.generator.get_state().tolist(),
                "epoch_start": run.epoch_start_rng.tolist(),
                "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
                "python": random.getstate()},
        "states": {k: getattr(run, k).state_dict() for k in ("model", "optimizer", "scheduler")},
        "step": int(run.step),
    }, path)


def load_checkpoint(path, run):
    """Exercise 12.3: restore the fresh `run` in place from the file written by save_checkpoint."""
    ck = torch.load(path, weights_only=True)
    torch.random.set_rng_state(torch.tensor(ck["rng"]["torch"], dtype=torch.uint8))
    run.loader.generator.set_state(torch.tensor(ck["rng"]["loader"], dtype=torch.uint8))
    run.epoch_start_rng = torch.tensor(ck["rng"]["epoch_start"], dtype=torch.uint8)
    name, keys, *rest = ck["rng"]["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), *rest))
    random.setstate(ck["rng"]["python"])
    for k in ("scheduler", "optimizer", "model"):
        getattr(run, k).load_state_dict(ck["states"][k])
    run.step = ck["step"]
