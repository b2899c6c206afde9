# caught by the visible tests
def save_checkpoint(path, run):
    """Exercise 12.3: write everything needed to continue `run` bit for bit."""
    checkpoint = {
        "model": run.model.state_dict(),
        "optimizer": run.optimizer.state_dict(),
        "scheduler": run.scheduler.state_dict(),
        "step": run.step,
        "epoch_start_rng": run.epoch_start_rng,
        "loader_rng": run.loader.generator.get_state(),
        "torch_rng": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        checkpoint["cuda_rng"] = torch.cuda.get_rng_state_all()
    torch.save(checkpoint, path)


def load_checkpoint(path, run):
    """Exercise 12.3: restore the fresh `run` in place from the file written by save_checkpoint."""
    ck = torch.load(path, map_location="cpu", weights_only=True)
    run.model.load_state_dict(ck["model"])
    run.optimizer.load_state_dict(ck["optimizer"])
    run.scheduler.load_state_dict(ck["scheduler"])
    run.epoch_start_rng = ck["epoch_start_rng"]
    run.loader.generator.set_state(ck["loader_rng"])
    torch.set_rng_state(ck["torch_rng"])
    if "cuda_rng" in ck and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ck["cuda_rng"])
