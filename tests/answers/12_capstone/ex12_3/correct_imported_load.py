# correct: torch.serialization.load imported by name, weights_only=True written out
from torch.serialization import load as _load


def save_checkpoint(path, run):
    state = {
        "states": {"model": run.model.state_dict(), "opt": run.optimizer.state_dict(),
                   "sched": run.scheduler.state_dict()},
        "progress": {"step": int(run.step)},
        "rng": {"torch": torch.get_rng_state(), "loader": run.loader.generator.get_state(),
                "epoch_start": run.epoch_start_rng.clone()},
    }
    if torch.cuda.is_available():
        state["rng"]["cuda"] = torch.cuda.get_rng_state_all()
    torch.save(state, path)


def load_checkpoint(path, run):
    state = _load(path, weights_only=True)
    torch.set_rng_state(state["rng"]["torch"])
    if torch.cuda.is_available() and "cuda" in state["rng"]:
        torch.cuda.set_rng_state_all(state["rng"]["cuda"])
    run.loader.generator.set_state(state["rng"]["loader"])
    run.epoch_start_rng = state["rng"]["epoch_start"]
    run.step = state["progress"]["step"]
    run.model.load_state_dict(state["states"]["model"])
    run.optimizer.load_state_dict(state["states"]["opt"])
    run.scheduler.load_state_dict(state["states"]["sched"])
