"""A toy method on the release contract, the recipe "add a method" in one folder (docs/architecture.md): noisy
1-way marginals, sampled independently.  Registered in a test by one line:

    register(Method("toy", "toy_method.method:ToyMarginals", "toy-marginals", "toy_method.method:from_document",
                    "toy: noisy 1-way marginals", parameters="toy_method.parameters:PARAMETERS"))
"""
