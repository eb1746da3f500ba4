"""JAX4xx: mistakes in the arguments of grad, value_and_grad, jacrev, jacfwd and hessian."""
