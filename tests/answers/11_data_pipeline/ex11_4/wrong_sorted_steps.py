# wrong: the deterministic steps in another order (normalization moved last)
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    kept = [t for t in train_pipeline.transforms if not isinstance(t, RANDOM_TRANSFORMS)]
    return v2.Compose([t for t in kept if not isinstance(t, v2.Normalize)] + [t for t in kept if isinstance(t, v2.Normalize)])
