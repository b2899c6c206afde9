# correct: torch.load imported by name (`from torch import load`), weights_only=True written out; NumPy state as lists
from torch import load


def save_checkpoint(path, run):
    """Exercise 9.2: write everything needed to continue `run` exactly."""
    np_state = np.random.get_state(legacy=False)
    np_state = {**np_state, "state": {"key": np_state["state"]["key"].tolist(), "pos": int(np_state["state"]["pos"])}}
    torch.save({
        "rng": {"torch": torch.get_rng_state(), "numpy": np_state, "python": random.getstate(),
                "loader": run.loader.generator.get_state(), "epoch_start": run.epoch_start_rng.clone()},
        "states": {"model": run.model.state_dict(), "optimizer": run.optimizer.state_dict(),
                   "scheduler": run.scheduler.state_dict(), "scaler": run.scaler.state_dict()},
        "step": int(run.step),
    }, path)


def load_checkpoint(path, run):
    """Exercise 9.2: restore a fresh `run` in place from the file written by `save_checkpoint`."""
    ck = load(path, weights_only=True)
    for name in ["scaler", "scheduler", "optimizer", "model"]:
        getattr(run, name).load_state_dict(ck["states"][name])
    run.step = ck["step"]
    rng = ck["rng"]
    np_state = dict(rng["numpy"])
    np_state["state"] = {"key": np.array(np_state["state"]["key"], dtype=np.uint32), "pos": np_state["state"]["pos"]}
    np.random.set_state(np_state)
    random.setstate(rng["python"])
    run.loader.generator.set_state(rng["loader"])
    run.epoch_start_rng = rng["epoch_start"]
    torch.set_rng_state(rng["torch"])
