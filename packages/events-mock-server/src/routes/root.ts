import type { FastifyInstance } from 'fastify';
import { ROUTES } from '../generated/routes.gen.js';

/**
 * GET /: where to go from here (issue 23: a person who opens the server's address met a 404). The docs and
 * the inspector are named only when mounted; the operations paths come from the route table.
 */
export function registerRoot(app: FastifyInstance, mounted: { docs: boolean; inspector: boolean }): void {
  const index = {
    service: 'events-mock-server',
    ...(mounted.docs ? { docs: '/docs/', openapi: '/openapi.yaml' } : {}),
    ...(mounted.inspector ? { inspector: '/inspector/' } : {}),
    health: ROUTES['operations/health'].url,
    ready: ROUTES['operations/ready'].url,
    metrics: ROUTES['operations/metrics'].url,
  };
  app.get('/', async () => index);
}
