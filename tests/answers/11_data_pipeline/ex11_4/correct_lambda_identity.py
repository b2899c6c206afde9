# correct: an explicit loop; when every step is random, a Compose of one function that returns its input
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    steps = []
    for t in train_pipeline.transforms:
        if not any(isinstance(t, cls) for cls in RANDOM_TRANSFORMS):
            steps.append(t)
    if len(steps) == 0:
        return v2.Compose([lambda image: image])
    return v2.Compose(steps)
