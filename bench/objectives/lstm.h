/* LSTM (ADBench): an l-layer LSTM with element-wise ("diagonal") weights over a sequence of c
 * one-hot-like vectors of width b, predicting each next vector; loss = mean log-softmax
 * cross-entropy.  Active inputs, one buffer: main (2 l 4b: per layer weights then biases for the
 * forget, input, output and change gates) then extra (3b: input scale, output scale, output bias). */
#ifndef LSTM_H
#define LSTM_H
struct Problem {
  int l, c, b;
  double *params, *state, *seq;
};
double lstm_primal(int l, int c, int b, const double *main_params, const double *extra_params,
                   const double *state0, const double *seq);
#endif
