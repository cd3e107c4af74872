/* The ODE case of ode.c differentiated under `zyg grad --tape-budget 1MiB` (build.rs:
 * BUDGETS): the same code under other names, so that both gradients are in one library. */
#define ode_objective ode_budget_objective
#define ode_objective_grad ode_budget_objective_grad
#define ode_setup ode_budget_setup
#define ode_free ode_budget_free
#define ode_primal ode_budget_primal
#define ode_zyg ode_budget_zyg
#define ode_hand ode_budget_hand
#include "ode.c"
