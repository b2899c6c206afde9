# wrong: removes the random steps from train_pipeline itself, so training stops augmenting
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    for t in list(train_pipeline.transforms):
        if isinstance(t, RANDOM_TRANSFORMS):
            train_pipeline.transforms.remove(t)
    return v2.Compose(list(train_pipeline.transforms))
