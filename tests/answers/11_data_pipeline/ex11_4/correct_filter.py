# correct: filter() with a predicate on the class tuple
# Exercise 11.4
def make_eval_pipeline(train_pipeline):
    """Exercise 11.4: a new v2.Compose of the non-random transforms of train_pipeline, in order."""
    return v2.Compose(list(filter(lambda t: not isinstance(t, RANDOM_TRANSFORMS), train_pipeline.transforms)))
