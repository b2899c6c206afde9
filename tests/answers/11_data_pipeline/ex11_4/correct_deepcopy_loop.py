# correct: a loop that keeps deep copies of the deterministic steps
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    import copy

    kept = []
    for step in train_pipeline.transforms:
        if isinstance(step, RANDOM_TRANSFORMS):
            continue
        kept.append(copy.deepcopy(step))
    if not kept:  # v2.Compose([]) raises
        kept.append(v2.Identity())
    return v2.Compose(kept)
