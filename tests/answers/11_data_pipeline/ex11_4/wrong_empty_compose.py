# wrong: v2.Compose([]) when every step is random, which raises ValueError
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    return v2.Compose([t for t in train_pipeline.transforms if not isinstance(t, RANDOM_TRANSFORMS)])
