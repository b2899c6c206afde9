# wrong: an exact-type check, so a subclass of a random transform is kept
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    kept = [t for t in train_pipeline.transforms if type(t) not in RANDOM_TRANSFORMS]
    return v2.Compose(kept or [v2.Identity()])
