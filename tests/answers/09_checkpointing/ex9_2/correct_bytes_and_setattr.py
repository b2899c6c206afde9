# correct: NumPy key array stored as raw bytes, every object with a state_dict handled in one loop
STATEFUL = ("model", "optimizer", "scheduler", "scaler")


def save_checkpoint(path, run):
    """Exercise 9.2: write everything needed to continue `run` exactly."""
    name, keys, pos, has_gauss, cached = np.random.get_state()
    ck = {k: getattr(run, k).state_dict() for k in STATEFUL}
    ck.update(step=run.step, epoch_start_rng=run.epoch_start_rng,
              loader_generator=run.loader.generator.get_state(), torch_rng=torch.get_rng_state(),
              np_rng=[name, keys.tobytes(), pos, has_gauss, cached], py_rng=random.getstate())
    torch.save(ck, path)


def load_checkpoint(path, run):
    """Exercise 9.2: restore a fresh `run` in place from the file written by `save_checkpoint`."""
    ck = torch.load(path, weights_only=True)
    for k in STATEFUL:
        getattr(run, k).load_state_dict(ck[k])
    run.step, run.epoch_start_rng = ck["step"], ck["epoch_start_rng"]
    run.loader.generator.set_state(ck["loader_generator"])
    name, raw, pos, has_gauss, cached = ck["np_rng"]
    np.random.set_state((name, np.frombuffer(raw, dtype=np.uint32).copy(), pos, has_gauss, cached))
    random.setstate(ck["py_rng"])
    torch.set_rng_state(ck["torch_rng"])
